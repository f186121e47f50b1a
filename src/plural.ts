/** A count with its noun, singular for one: "1 file", "3 files", "0 files"; `many` where "s" is not the plural. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
