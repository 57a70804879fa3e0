// Node: the pool's workers wait for work for as long as the module lives, which must not keep the process
// alive after the program is done.
Module['unrefWorkers'] = function() {
  PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function(worker) { if (worker.unref) worker.unref(); });
};
