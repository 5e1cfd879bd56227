// The papers a text cites, as the lab writes them: "Surname et al. (2023",
// "Surname et al. 2023", "Surname ら（2023" / "Surname ら 2023", "Surname,
// Smith & Lewis (2022", "bloc97 … 2023", and arXiv ids. Used by
// tests/web/claims.test.mjs to hold docs/claims.md to the exercise files.
const PATTERNS = [
  /\b([A-Z][A-Za-z-]+) et al\.,? [(（]?((?:19|20)\d\d)/g,
  /\b([A-Z][A-Za-z-]+) ら\s*[(（]?((?:19|20)\d\d)/g,
  /\b([A-Z][A-Za-z-]+), [A-Z][A-Za-z-]+ & [A-Z][A-Za-z-]+\s*[(（]?((?:19|20)\d\d)/g,
  /\b(bloc97)\b[^0-9\n]{0,40}?((?:19|20)\d\d)/g,
];

export function citations(text) {
  const found = new Map();
  for (const re of PATTERNS) for (const m of text.matchAll(re)) found.set(`${m[1]} ${m[2]}`, { author: m[1], year: m[2] });
  const arxiv = [...new Set([...text.matchAll(/arXiv:(\d{4}\.\d{4,5})/g)].map((m) => m[1]))];
  return { papers: [...found.values()], arxiv };
}

// What of `cited` the list does not hold: a paper counts as listed when one
// line of the list names its author and its year; an arXiv id when it appears.
export function missingFrom(listText, cited) {
  const lines = listText.split('\n');
  const papers = cited.papers.filter((p) => !lines.some((l) => l.includes(p.author) && l.includes(p.year))).map((p) => `${p.author} ${p.year}`);
  const arxiv = cited.arxiv.filter((id) => !listText.includes(id)).map((id) => `arXiv:${id}`);
  return [...papers, ...arxiv];
}
