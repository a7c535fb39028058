import { useQuery } from '@tanstack/react-query';
import { api } from './api/api';
import { unwrap } from './api/errors';
import type { Me } from './roles';

/** The signed-in person, their account and plan (GET /auth/me), shared by every page. */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: async (): Promise<Me> => unwrap(await api.GET('/api/v1/auth/me')) });
}
