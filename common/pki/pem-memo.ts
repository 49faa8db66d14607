// What a PEM says, worked out once: parsing a certificate or key (pure JavaScript ASN.1) cost a controller most of
// an enrollment's CPU when it parsed its own enrollment CA, its trust domain and its controllers' certificates again
// for every router. The value depends only on the PEM text, so the text is the key; a failure is never kept, so a bad
// PEM is judged (and refused) each time. Bounded: a process holds a few issuers and controller certificates, and a
// caller passing many different PEMs only evicts the oldest.
export class PemMemo<T> {
  private readonly values = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T>>();

  constructor(private readonly limit: number) {}

  get(pem: string, compute: (pem: string) => T): T {
    if (this.values.has(pem)) return this.values.get(pem)!;
    const value = compute(pem);
    if (this.values.size >= this.limit) this.values.delete(this.values.keys().next().value!);
    this.values.set(pem, value);
    return value;
  }

  /** The same for a value worked out asynchronously: concurrent first calls share one computation. */
  getAsync(pem: string, compute: (pem: string) => Promise<T>): Promise<T> {
    if (this.values.has(pem)) return Promise.resolve(this.values.get(pem)!);
    const pending = this.pending.get(pem);
    if (pending) return pending;
    const work = compute(pem).then(
      (value) => {
        this.pending.delete(pem);
        return this.get(pem, () => value);
      },
      (error: unknown) => {
        this.pending.delete(pem);
        throw error;
      },
    );
    this.pending.set(pem, work);
    return work;
  }
}
