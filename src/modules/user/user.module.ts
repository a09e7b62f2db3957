import type { AppModule } from '../module';
import { User } from './user.entity';
import { ApiKey } from './api-key.entity';
import { UserResolver } from './user.resolver';
import { userPolicy } from './user.policy';
import { userDemo } from './user.demo';

export const userModule: AppModule = {
  name: 'user',
  entities: [User, ApiKey],
  resolvers: [UserResolver],
  policies: [userPolicy],
  connections: { users: 'User' },
  demo: [userDemo],
};
