import { commonV1, gradingV1, timestampFromDate } from '@cardlens/contracts';
import type { Grade } from '../db';

/** The generic error of a refunded grade; the internal reason stays in the row and the logs. */
export const REFUNDED_ERROR = 'Grading failed; the grade was refunded to its period. Retry with a new Idempotency-Key.';

const STATUS: Record<string, gradingV1.CommercialGradeStatus> = {
  processing: gradingV1.CommercialGradeStatus.PROCESSING,
  completed: gradingV1.CommercialGradeStatus.COMPLETED,
  refunded: gradingV1.CommercialGradeStatus.REFUNDED,
};

const SOURCE: Record<string, commonV1.BillingSource> = {
  trial: commonV1.BillingSource.TRIAL,
  subscription: commonV1.BillingSource.SUBSCRIPTION,
};

/** A saved grade as the contract shows it: the numeric receipt, never the photos. */
export function toCommercialGrade(grade: Grade): gradingV1.CommercialGrade {
  const completed = grade.status === 'completed';
  return {
    gradeId: Number(grade.id),
    status: STATUS[grade.status] ?? gradingV1.CommercialGradeStatus.UNSPECIFIED,
    grading: completed && grade.grading !== null ? commonV1.Grading.fromJSON(grade.grading) : undefined,
    billingSource: grade.billingSource ? (SOURCE[grade.billingSource] ?? commonV1.BillingSource.UNSPECIFIED) : commonV1.BillingSource.UNSPECIFIED,
    gradesCharged: grade.status === 'refunded' ? 0 : grade.gradesCharged,
    creditsCharged: 0,
    createdAt: timestampFromDate(grade.createdAt),
    completedAt: grade.completedAt ? timestampFromDate(grade.completedAt) : undefined,
    refundedAt: grade.refundedAt ? timestampFromDate(grade.refundedAt) : undefined,
    error: grade.status === 'refunded' ? REFUNDED_ERROR : '',
  };
}

/**
 * The receipt kept for a completed grade: the engine's grading minus what does not apply to a commercial grade
 * (no overlay is drawn or stored, no written justification).
 */
export function receiptOf(grading: commonV1.Grading): unknown {
  return commonV1.Grading.toJSON({ ...grading, overlayAvailable: false, justification: '' });
}
