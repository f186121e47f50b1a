/** LEMBAS_LOCAL_PORTS=11434,8080 changes which loopback ports are probed for a local model server. */
export function localPorts(value: string | undefined): number[] | undefined {
  if (!value) return undefined;
  const ports = value.split(",").map((p) => Number(p.trim())).filter((p) => Number.isInteger(p) && p > 0 && p < 65536);
  return ports.length > 0 ? ports : undefined;
}
