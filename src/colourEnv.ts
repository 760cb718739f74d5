// Imported first by the entry point, before anything loads chalk or Ink: NO_COLOR
// (https://no-color.org) turns colour off on a terminal too. chalk's colour detection reads only
// FORCE_COLOR and --no-color, so NO_COLOR is translated here. ES modules run their imports first,
// which is why this cannot sit in the body of cli.tsx.
if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') process.env['FORCE_COLOR'] = '0';
export {};
