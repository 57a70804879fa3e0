// The errors of reading weight files, apart from the readers (weight_files.js, loaded with the full module): the core
// raises WeightFileError for a malformed header, and every page may catch either.

// A malformed weights file; `offset` is the byte where the problem is.
export class WeightFileError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WeightFileError';
    const at = message.match(/\(at byte (\d+)\)$/);
    this.offset = at ? Number(at[1]) : null;
  }
}

// A request that failed, naming the URL (and the HTTP status where the server answered).
export class WeightFetchError extends Error {
  constructor(message, url, status = null) {
    super(message);
    this.name = 'WeightFetchError';
    this.url = url;
    this.status = status;
  }
}
