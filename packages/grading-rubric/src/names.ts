/** Grade names (PSA-like). Half points take the name of the grade below with a '+' (8.5 = NM-MT+). */

interface GradeName {
  short: string;
  long: string;
}

const NAMES: Record<number, GradeName> = {
  10: { short: 'GEM-MT', long: 'Gem Mint' },
  9: { short: 'MINT', long: 'Mint' },
  8: { short: 'NM-MT', long: 'Near Mint-Mint' },
  7: { short: 'NM', long: 'Near Mint' },
  6: { short: 'EX-MT', long: 'Excellent-Mint' },
  5: { short: 'EX', long: 'Excellent' },
  4: { short: 'VG-EX', long: 'Very Good-Excellent' },
  3: { short: 'VG', long: 'Very Good' },
  2: { short: 'GOOD', long: 'Good' },
  1: { short: 'PR', long: 'Poor' },
};
/** PSA's 1.5 has a name of its own. */
const FAIR: GradeName = { short: 'FR', long: 'Fair' };

function nameOf(grade: number): GradeName {
  const g = Math.min(10, Math.max(1, Math.round(grade * 2) / 2));
  if (g === 1.5) return FAIR;
  const whole = Math.floor(g);
  const base = NAMES[whole]!;
  return g === whole ? base : { short: `${base.short}+`, long: `${base.long}+` };
}

/** 'Near Mint-Mint' for 8, 'Near Mint-Mint+' for 8.5. */
export function gradeLongName(grade: number): string {
  return nameOf(grade).long;
}

/** 'NM-MT' for 8, 'NM-MT+' for 8.5. */
export function gradeShortName(grade: number): string {
  return nameOf(grade).short;
}

/** 'NM-MT+ 8.5'. */
export function gradeLabel(grade: number): string {
  return `${gradeShortName(grade)} ${formatGrade(grade)}`;
}

/** '8', '8.5'. */
export function formatGrade(grade: number): string {
  return Number.isInteger(grade) ? String(grade) : grade.toFixed(1);
}

/** Wording for the level a flaw allows on its own. */
export function qualifier(gradeLevel: number): string {
  if (gradeLevel >= 9) return 'light';
  if (gradeLevel >= 8) return 'minor';
  if (gradeLevel >= 6.5) return 'moderate';
  if (gradeLevel >= 4.5) return 'heavy';
  return 'severe';
}

const WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
export function countWord(n: number): string {
  return WORDS[n] ?? String(n);
}
