/** Runs named tasks in a worker: { id, task, args } in; { id, progress }, then { id, result } or { id, error } out. */
export function serveTasks<I>(
  tasks: Record<string, (instance: I, args: any, progress: (fraction: number) => void) => { result: unknown; transfer?: Transferable[] } | Promise<{ result: unknown; transfer?: Transferable[] }>>,
  instantiate: () => Promise<I>,
): void;
