// What a callback allocates is freed when it returns, whatever the runtime
// (docs/assemblyscript.md, "Memory"). kube32 builds pods with
// AssemblyScript's stub runtime, the smallest, which never frees: so after
// each callback the SDK moves its heap back to where it stood when the first
// callback began, above everything the pod's start made. Under the minimal
// or incremental runtime it runs the collector instead.

// The stub runtime's block header and alignment (rt/common.ts).
const BLOCK_OVERHEAD: usize = 4;
const BLOCK_ALIGN: usize = 16;

// @ts-ignore: decorator
@lazy let mark: usize = 0;

// top is where the stub runtime's next block starts.
function top(): usize {
  // @ts-ignore: the runtime's own, which TypeScript's view of the standard library leaves out
  const p = __alloc(0);
  // @ts-ignore: the runtime's own
  __free(p); // the last block: the offset goes back
  return p - BLOCK_OVERHEAD;
}

/** Called as a callback begins: the first one marks the heap. */
export function enter(): void {
  // @ts-ignore: the stub runtime's own
  if (isDefined(__reset) && mark == 0) mark = top();
}

/** Called as a callback ends: frees what it allocated. */
export function leave(): void {
  // @ts-ignore: the stub runtime's own
  if (!isDefined(__reset)) {
    // @ts-ignore: the runtime's own
    __collect();
    return;
  }
  // @ts-ignore: the stub runtime's own
  __reset();
  const start = top();
  // One block from the start up to the mark holds what the pod's start
  // made; its size makes the next block begin at the mark.
  // @ts-ignore: the runtime's own
  if (mark > start) __alloc(mark - start - BLOCK_ALIGN);
}
