// The one failure of the filter language (lexing, parsing or compiling against a catalogue).
// It stays free of HTTP concerns; list-query.ts turns it into `400 INVALID_FILTER`.

export class FilterError extends Error {
  /** 1-based column in the filter text the problem points at. */
  readonly column: number;

  constructor(message: string, column: number) {
    super(message);
    this.name = 'FilterError';
    this.column = column;
  }
}
