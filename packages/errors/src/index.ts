export { defaultRetryAfterSeconds, errorTable, errorCodes, isErrorCode, lookupError, type ErrorCode, type ErrorEntry } from './table';
export { AppError, isAppError, isTransientDependencyFailure, toClientError, type ProblemExtras } from './app-error';
export { problemFor, problemFromError, problemType, PROBLEM_CONTENT_TYPE, type Problem } from './problem';
