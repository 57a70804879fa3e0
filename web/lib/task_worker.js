// A worker that runs named tasks for a page: messages { id, task, args } in; { id, progress } while a task reports
// it, then { id, result } (its transfer list moved, not copied) or { id, error: { name, message } }. Each task is
// (instance, args, progress) → { result, transfer } (or a promise of it), run on the instance instantiate() gives once.
// Used by <posembed-tokens>'s worker and the site's (`posembed/task-worker`).
export function serveTasks(tasks, instantiate) {
  let instance = null;
  self.onmessage = async ({ data: { id, task, args } }) => {
    try {
      instance ??= instantiate();
      const pe = await instance;
      if (!tasks[task]) throw new TypeError(`unknown task '${task}'`);
      const { result, transfer = [] } = await tasks[task](pe, args, (progress) => self.postMessage({ id, progress }));
      self.postMessage({ id, result }, transfer);
    } catch (error) {
      self.postMessage({ id, error: { name: error.name, message: error.message } });
    }
  };
}
