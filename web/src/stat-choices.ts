/** The statistics the form offers, read from their declarations (src/stats/catalogue.ts): no DOM, so tests read it too. */
import { FORM_GROUPS, PERCENTILE, type SourceKind } from '../../src/stats/catalogue.ts';
import { holesOf, spell, statisticsFor } from '../../src/stats/spelling.ts';

export interface StatChoice {
  /** The name sent in `stats`. */
  value: string;
  label: string;
  /** The statistic's description, as the API documents it. */
  title: string;
  /** Ticked when the page opens. */
  checked: boolean;
}

export interface StatGroupChoices {
  id: string;
  label: string;
  choices: StatChoice[];
}

/** The checkboxes for a source kind, by group in page order (empty groups left out), each in declaration order. */
export function statChoices(kind: SourceKind): StatGroupChoices[] {
  const declared = statisticsFor(kind);
  return FORM_GROUPS.map(({ id, label }) => ({
    id,
    label,
    choices: declared
      .filter((d) => d.form.group === id)
      .flatMap((d): StatChoice[] => {
        const checked = d.form.checked === true;
        if (holesOf(d).length === 0) return [{ value: d.name, label: d.form.label ?? d.name, title: d.description, checked }];
        return (d.form.offer ?? []).map((args) => ({ value: spell(d, args), label: spell(d, args), title: d.description, checked }));
      }),
  })).filter((g) => g.choices.length > 0);
}

/** "25, 75" → percentile_25, percentile_75, spelled as typed (the service checks them and names a bad one). */
export function typedPercentiles(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .filter((s) => s !== '')
    .map((q) => spell(PERCENTILE, { q }));
}
