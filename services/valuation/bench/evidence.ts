/**
 * The identification evidence of an engine analysis, as the scans worker passes it to IdentifyCard; empty
 * evidence when no card was found (identification then says so, as the service would).
 */
import type { CardAnalysis } from '@cardlens/vision';
import type { Evidence } from '../src/identification/read-evidence';

export function evidenceOf(analysis: CardAnalysis | undefined): Evidence {
  const e = analysis?.evidence;
  if (!e) return { titleText: '', titleAlternatives: [], numberText: '', numberAlternatives: [], serialText: '', copyrightText: '', fingerprint: [], finishCues: [], otherText: [], borderColor: '', holderLabelText: [] };
  return { titleText: e.titleText, titleAlternatives: e.titleAlternatives ?? [], numberText: e.numberText, numberAlternatives: e.numberAlternatives ?? [], serialText: e.serialText, copyrightText: e.copyrightText, fingerprint: e.fingerprint, finishCues: e.finishCues, otherText: e.otherText, borderColor: e.borderColor, holderLabelText: e.holderLabelText ?? [] };
}
