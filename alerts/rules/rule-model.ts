// The shapes of the Prometheus rules edgeward generates, with the promtool unit tests that travel with each rule.
// A rule and its tests are written side by side in TypeScript, so the generated rules file and its test file can
// never drift apart.
import type { AlertName } from '../catalogue/alert-catalogue.ts';

export interface RecordingRule {
  /** `level:metric:operations`, the Prometheus recording-rule convention. */
  readonly record: string;
  readonly expr: string;
  /** What the series means, for the documentation. */
  readonly meaning: string;
}

/** How a description's `$value` is printed (a Prometheus template function). */
export type ValueFormat = 'plain' | 'humanizeDuration' | 'humanize1024';

/**
 * What a description template is written against: in the rule, label references and `$value` become Prometheus
 * template actions; in a test, the labels and the value of the alert the test expects.
 */
export interface TemplateText {
  label(name: string): string;
  readonly value: string;
}

/** A series promtool feeds to the rules: `metric{labels}` and its values in promtool's expanding notation. */
export interface InputSeries {
  readonly series: string;
  readonly values: string;
}

export interface ExpectedAlert {
  /** The labels the expression yields (cluster, controller, ...); severity and the scope's labels are added. */
  readonly labels: Readonly<Record<string, string>>;
  /** `$value` as the description prints it (after the rule's value format), when the description uses it. */
  readonly value?: string;
}

export interface AlertCheck {
  /** Time since the start of the series (a Prometheus duration). */
  readonly at: string;
  /** The alerts firing then; empty: none may fire. */
  readonly firing: readonly ExpectedAlert[];
}

export interface AlertTestCase {
  /** The behaviour proven, as a sentence. */
  readonly name: string;
  /** Time between two values of each input series. */
  readonly interval: string;
  readonly series: readonly InputSeries[];
  readonly checks: readonly AlertCheck[];
}

export interface AlertRule {
  readonly name: AlertName;
  readonly expr: string;
  /** How long the expression must hold before the alert fires (a Prometheus duration). */
  readonly for: string;
  readonly valueFormat?: ValueFormat;
  /** The instance-specific sentence that opens the description; the catalogue's description follows it. */
  readonly detail: (text: TemplateText) => string;
  /** Why this expression and this duration: the documentation's account of the choice. */
  readonly rationale: string;
  readonly tests: readonly AlertTestCase[];
}

export interface ExprCheck {
  readonly at: string;
  readonly expr: string;
  /** Expected samples: the series in promtool's `metric{labels}` form, and the value. */
  readonly samples: readonly { readonly labels: string; readonly value: number }[];
}

export interface RecordingTestCase {
  readonly name: string;
  readonly interval: string;
  readonly series: readonly InputSeries[];
  readonly checks: readonly ExprCheck[];
}
