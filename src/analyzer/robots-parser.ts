import robotsModule from 'robots-parser';

/**
 * robots-parser's parse function. The package is CommonJS (`module.exports = fn`), so Node's
 * default import is the function itself; its types declare an ES default export, which
 * TypeScript then puts under `.default`.
 */
export const robotsParser = robotsModule as unknown as typeof robotsModule.default;
