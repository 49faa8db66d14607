// What a checker throws: the property broken and enough detail to debug it from the seed's trace.
export class SafetyViolation extends Error {
  constructor(
    readonly property: string,
    detail: string,
  ) {
    super(`${property}: ${detail}`);
    this.name = 'SafetyViolation';
  }
}
