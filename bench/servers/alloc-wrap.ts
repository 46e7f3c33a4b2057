import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
process.on('SIGUSR1', () => {
  void session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
});
process.on('SIGUSR2', () => {
  void (async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync('/tmp/hacks/alloc.heapprofile', JSON.stringify(profile));
  })();
});
await import('./service.ts');
