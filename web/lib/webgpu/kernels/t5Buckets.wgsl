// Row `row` (a query) of the bucket matrix: the bucket of key − query for each key, read from the core's buckets
// of every relative position (input: −(queryLength − 1) … keyLength − 1, exact integers), so they are HF's to the
// integer, which float32 logarithms on the GPU might not give.
fn element(row: u32, column: u32) -> i32 {
  return i32(input[column + u32(options.queryLength) - 1u - row]);
}
