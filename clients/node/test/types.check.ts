// Compiled by `npm test` (tsc --noEmit), never run: the declarations in src/index.d.ts must
// accept the documented uses and refuse wrong ones.
import {
  DEFAULTS, IdClient, IdClientClosedError, IdServiceUnavailableError, IdmintArgumentError, Layout,
  decode, type IdClientOptions, type IdClientStats, type IdParts,
} from '../src/index.js';

export async function uses(): Promise<void> {
  const options: IdClientOptions = { bufferSize: 65536, deadlineMs: 5000, callTimeoutMs: 1000, token: 't' };
  const ids = IdClient.connect(['127.0.0.1:8080', 'https://h2:8443'], options);
  await ids.ready();
  const id: bigint = await ids.nextId();
  const text: string = await ids.nextIdString();
  const order: bigint = await ids.segment('order').next();
  const one: string = await ids.serial('invoice').next();
  const many: string[] = await ids.serial('invoice').next(3);
  const stats: IdClientStats = ids.stats();
  const parts: IdParts = decode(id, 'snowflake');
  const exact: bigint = Layout.parse('time=41,worker=4,sequence=12').decodeExact('12345').sequence;
  const n: number = DEFAULTS.bufferSize + parts.timestampMs + stats.bufferedIds;
  try {
    await ids.nextId();
  } catch (e) {
    if (e instanceof IdServiceUnavailableError) {
      const f: Readonly<Record<string, string>> = e.failures;
      void f;
    } else if (e instanceof IdClientClosedError || e instanceof IdmintArgumentError) {
      const code: string = e.code;
      void code;
    }
  }
  // @ts-expect-error an ID is never a number
  const wrong: number = await ids.nextId();
  // @ts-expect-error options are checked
  IdClient.connect(['h:1'], { bufferSise: 1 });
  void [text, order, one, many, exact, n, wrong];
  await ids.close();
}
