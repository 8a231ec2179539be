import { commonV1, gradingAssessment, gradingV1, isoOrNull } from '@cardlens/contracts';
import { assessedOnly, centeringRatio, presentEngine, presentNotAssessed, presentSubGrades, reportUrl, score, type AssessedSubGradesView, type CenteringRatioView, type EngineView } from './scan-view';
import type { NotAssessedItem } from '../contract/schemas';

/** The JSON of a commercial grade (GET /v1/grades/{id}, and POST /v1/grades when completed). */
export interface GradeView {
  id: number;
  gradeId: string;
  status: 'processing' | 'completed' | 'refunded';
  billingSource: 'trial' | 'subscription' | null;
  gradesCharged: number;
  creditsCharged: 0;
  createdAt: string | null;
  completedAt: string | null;
  refundedAt?: string | null;
  error?: string;
  grading?: CommercialGradingView;
  /** `report` (completed grades): the live share link of the report page, absent once revoked or expired. */
  links: { self: string; report?: string };
  /** Completed grades: when links.report stops working; null without a live link. */
  reportExpiresAt?: string | null;
}

/** Numeric condition scores only: never identification, value or market. */
export interface CommercialGradingView {
  /** A completed commercial grade always rests on a measurement (nothing assessable is refunded, 422). */
  grade: number;
  predictedGrade: number | null;
  /** Null for an aspect that was not assessed on either side (its reason is in notAssessedReasons). */
  subGrades: AssessedSubGradesView;
  front: AssessedSubGradesView;
  back: AssessedSubGradesView;
  centering: { front: CenteringRatioView | null; back: CenteringRatioView | null };
  summary: string;
  notAssessed: NotAssessedItem[];
  notAssessedReasons: { item: NotAssessedItem; reason: string }[];
  engine: EngineView;
}

const STATUS: Record<number, GradeView['status']> = {
  [gradingV1.CommercialGradeStatus.PROCESSING]: 'processing',
  [gradingV1.CommercialGradeStatus.COMPLETED]: 'completed',
  [gradingV1.CommercialGradeStatus.REFUNDED]: 'refunded',
};

const SOURCE: Record<number, GradeView['billingSource']> = {
  [commonV1.BillingSource.TRIAL]: 'trial',
  [commonV1.BillingSource.SUBSCRIPTION]: 'subscription',
};

export const gradePath = (id: number): string => `/v1/grades/${id}`;

/** `baseUrl` makes the share link of a completed grade absolute. */
export function presentGrade(grade: gradingV1.CommercialGrade | undefined, baseUrl = ''): GradeView {
  if (!grade) throw new Error('grading returned no grade');
  const status = STATUS[grade.status] ?? 'processing';
  const view: GradeView = {
    id: grade.gradeId,
    gradeId: `grade_${grade.gradeId}`,
    status,
    billingSource: SOURCE[grade.billingSource] ?? null,
    gradesCharged: grade.gradesCharged,
    creditsCharged: 0,
    createdAt: isoOrNull(grade.createdAt),
    completedAt: isoOrNull(grade.completedAt),
    links: { self: gradePath(grade.gradeId) },
  };
  if (status === 'refunded') {
    view.refundedAt = isoOrNull(grade.refundedAt);
    view.error = grade.error;
  }
  if (status === 'completed' && grade.grading) view.grading = presentCommercialGrading(grade.grading);
  if (status === 'completed') {
    if (grade.reportLink) view.links.report = reportUrl(baseUrl, grade.reportLink.token);
    view.reportExpiresAt = grade.reportLink ? isoOrNull(grade.reportLink.expiresAt) : null;
  }
  return view;
}

function presentCommercialGrading(grading: commonV1.Grading): CommercialGradingView {
  const predicted = grading.predictedGrade;
  const assessed = gradingAssessment(grading);
  const back = assessed.back ?? { centering: false, corners: false, edges: false, surface: false };
  return {
    grade: score(grading.grade),
    predictedGrade: predicted !== undefined && Number.isFinite(predicted) ? score(predicted) : null,
    subGrades: assessedOnly(presentSubGrades(grading.subGrades), assessed.aspects),
    front: assessedOnly(presentSubGrades(grading.front ?? grading.subGrades), assessed.front),
    back: assessedOnly(presentSubGrades(grading.back), back),
    centering: {
      front: assessed.front.centering && grading.frontCentering ? centeringRatio(grading.frontCentering) : null,
      back: back.centering && grading.backCentering ? centeringRatio(grading.backCentering) : null,
    },
    summary: grading.summary,
    ...presentNotAssessed(grading),
    engine: presentEngine(grading),
  };
}
