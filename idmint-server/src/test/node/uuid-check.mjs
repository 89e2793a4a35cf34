// Reads UUIDs, one per line, from the file named by the first argument and checks each with the
// npm uuid package (an independent parser): valid, and version 7. Prints the count checked;
// exits 1 naming the first UUID refused.
import { readFileSync } from 'node:fs';
import { validate, version } from 'uuid';

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.length > 0);
for (const u of lines) {
  if (!validate(u) || version(u) !== 7) {
    console.error(`npm uuid refuses ${u} as a version 7 UUID`);
    process.exit(1);
  }
}
console.log(lines.length);
