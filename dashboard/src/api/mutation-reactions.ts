/**
 * What a page does after a mutation (close a dialog, show a secret, navigate), run after the data
 * layer's own work (refreshing what the mutation changed). A hook that takes these hands them to
 * useMutation, so a ConfirmDialog's bare `mutate()` gets them too.
 */
export interface MutationReactions<TData> {
  readonly onSuccess?: (data: TData) => void;
  readonly onError?: (error: Error) => void;
}
