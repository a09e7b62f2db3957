import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { notificationDeliveries, NotificationService } from './notification.service';
import { NotificationDelivery, NotificationDeliveryWhere, NotificationPreferences, NotificationPreferencesInput } from './notification.types';

@Resolver(() => NotificationPreferences)
export class NotificationResolver {
  @Query(() => NotificationPreferences, {
    description: "The caller's e-mail notification settings, or with `userId` a team member's (a company admin's, for its company). Company and retailer users.",
  })
  notificationPreferences(
    @Arg('userId', () => ID, { nullable: true, description: "A user of the caller's company (company admins); the caller when left out. Another company's user is NOT_FOUND." }) userId: string | null,
    @Ctx() ctx: Context,
  ) {
    return new NotificationService(ctx).get(userId);
  }

  @Mutation(() => NotificationPreferences, {
    description: "Changes the caller's e-mail notification settings and language, or with `userId` a team member's (a company admin's, for its company). Company and retailer users.",
  })
  updateNotificationPreferences(
    @Arg('input', () => NotificationPreferencesInput, { description: 'The settings to change; those left out keep their value.' }) input: NotificationPreferencesInput,
    @Arg('userId', () => ID, { nullable: true, description: "A user of the caller's company (company admins); the caller when left out. Another company's user is NOT_FOUND." }) userId: string | null,
    @Ctx() ctx: Context,
  ) {
    return new NotificationService(ctx).update(input, userId);
  }

  @Query(() => [NotificationDelivery], {
    description: "The delivery log of the notification mails to the caller's company's users, newest first (docs/notifications.md). Company admins.",
  })
  notificationDeliveries(
    @Arg('where', () => NotificationDeliveryWhere, { nullable: true, description: 'Which deliveries; all when left out.' }) where: NotificationDeliveryWhere | null,
    @Arg('first', () => Int, { defaultValue: 50, description: 'How many, newest first (1 to 200).' }) first: number,
    @Ctx() ctx: Context,
  ) {
    return notificationDeliveries(ctx, where, first);
  }
}
