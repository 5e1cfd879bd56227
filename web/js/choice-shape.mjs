// Does a choice question give its answer away by its shape? For every choice
// question with a fixed answer (answer_from questions are computed per
// learner and left out), per language: is a right option strictly the
// longest (the longest right option longer than every wrong one), and where
// does the first right option stand in the file's order. Lengths are of what
// the student reads: TeX commands, braces and $ delimiters are not counted.
export function visibleLength(label) {
  const plain = String(label)
    .replace(/\\(mathrm|text|operatorname)\{([^}]*)\}/g, '$2')
    .replace(/\\[A-Za-z]+/g, 'x')
    .replace(/[${}\\]/g, '');
  return [...plain].length;
}

export function choiceShapes(exercises, langs = ['ja', 'en']) {
  const rows = [];
  for (const ex of exercises) {
    for (const b of ex.blocks) {
      if (b.type !== 'choice' || !b.answer) continue;
      const right = new Set(b.answer);
      const row = { exercise: ex.id, question: b.id, options: b.options.length, rightAt: b.options.findIndex((o) => right.has(o.id)), longest: {}, shortest: {}, lengths: {} };
      for (const lang of langs) {
        const len = b.options.map((o) => visibleLength(o.label[lang] ?? ''));
        const maxRight = Math.max(...len.filter((_, i) => right.has(b.options[i].id)));
        const maxWrong = Math.max(...len.filter((_, i) => !right.has(b.options[i].id)));
        const minRight = Math.min(...len.filter((_, i) => right.has(b.options[i].id)));
        const minWrong = Math.min(...len.filter((_, i) => !right.has(b.options[i].id)));
        row.longest[lang] = maxRight > maxWrong;
        // The reverse tell: a right option that is always the shortest.
        row.shortest[lang] = minRight < minWrong;
        row.lengths[lang] = b.options.map((o, i) => `${right.has(o.id) ? '*' : ''}${o.id}:${len[i]}`).join(' ');
      }
      rows.push(row);
    }
  }
  return rows;
}

// Problems (empty when the shapes do not tell): a right option strictly
// longest (or strictly shortest, the reverse tell) in more than a third of
// the questions in a language, or the right option at the same place in
// every question.
export function shapeProblems(rows, langs = ['ja', 'en']) {
  const problems = [];
  if (!rows.length) return problems;
  for (const lang of langs) {
    const n = rows.filter((r) => r.longest[lang]).length;
    if (3 * n > rows.length) problems.push(`${lang}: the right option is strictly the longest in ${n} of ${rows.length} choice questions (at most a third allowed): ${rows.filter((r) => r.longest[lang]).map((r) => `${r.exercise}/${r.question}`).join(', ')}`);
    const k = rows.filter((r) => r.shortest[lang]).length;
    if (3 * k > rows.length) problems.push(`${lang}: the right option is strictly the shortest in ${k} of ${rows.length} choice questions (at most a third allowed): ${rows.filter((r) => r.shortest[lang]).map((r) => `${r.exercise}/${r.question}`).join(', ')}`);
  }
  const places = new Set(rows.map((r) => r.rightAt));
  if (rows.length > 1 && places.size === 1) problems.push(`the right option is option ${[...places][0] + 1} in all ${rows.length} choice questions`);
  return problems;
}
