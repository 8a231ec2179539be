import parser from '@readme/openapi-parser'; export default parser;
