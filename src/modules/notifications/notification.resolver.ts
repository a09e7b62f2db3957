import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { NotificationService } from './notification.service';
import { NotificationPreferences, NotificationPreferencesInput } from './notification.types';

@Resolver(() => NotificationPreferences)
export class NotificationResolver {
  @Query(() => NotificationPreferences, { description: "The caller's e-mail notification settings. Company and retailer users." })
  notificationPreferences(@Ctx() ctx: Context) {
    return new NotificationService(ctx).get();
  }

  @Mutation(() => NotificationPreferences, { description: "Changes the caller's e-mail notification settings. Company and retailer users." })
  updateNotificationPreferences(@Arg('input', () => NotificationPreferencesInput, { description: 'The settings to change; those left out keep their value.' }) input: NotificationPreferencesInput, @Ctx() ctx: Context) {
    return new NotificationService(ctx).update(input);
  }
}
