// Opening a data file (the model database, the raft log) fails with errors that name neither the path nor the usual
// cause; this says both.
export async function explainOpen<T>(path: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    throw new Error(explainOpenFailure(path, error));
  }
}

export function explainOpenFailure(path: string, error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'LEVEL_LOCKED') return `${path} is locked: another controller is using this data directory`;
  return `cannot open ${path}: ${cause?.message ?? (error as Error).message}`;
}
