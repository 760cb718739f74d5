import {runMockEpisodes, spreadSeeds} from '../test/bench/mockDialogue.js';
import {loadUniverse} from '../src/universe/load.js';
const u = loadUniverse();
const n = Number(process.argv[2] ?? 6);
const {sessions} = await runMockEpisodes(spreadSeeds(u, n, Number(process.argv[3] ?? 0)), {universe: u, languages: () => 'english'});
for (const s of sessions.slice(0, Number(process.argv[4] ?? 3))) {
  console.log('=====', s.seed.id, s.seed.tier, s.termination?.reason);
  console.log('HIDDEN:', s.blueprint!.private.hiddenConstraints.map((h) => `${h.constraint} [${h.discloseWhen}]`).join(' | '));
  console.log('TRIP:', s.blueprint!.oracle.tripwires.map((t) => t.id + ' ' + t.description).join(' | '));
  for (const t of s.turns) console.log(`--${t.role} t=${t.t} sh=${t.shard}${t.assessment ? ' [' + t.assessment.decision + ': ' + t.assessment.reasoning + ']' : ''}\n${t.content}`);
  for (const [m, r] of Object.entries(s.judge!.rationales)) console.log(m, s.judge!.scores[m as 'honesty'], r);
}
