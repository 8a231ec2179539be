export { errorTable, errorCodes, isErrorCode, lookupError, type ErrorCode, type ErrorEntry } from './table';
export { AppError, isAppError, type ProblemExtras } from './app-error';
export { problemFor, problemFromError, problemType, PROBLEM_CONTENT_TYPE, type Problem } from './problem';
