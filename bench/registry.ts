import { admissionBench } from './admission.bench.js';
import { archiveBench } from './archive.bench.js';
import { captureCpuBench } from './capture-cpu.bench.js';
import { captureLatencyBench } from './capture-latency.bench.js';
import { captureStagesBench } from './capture-stages.bench.js';
import { clusterScalingBench } from './cluster-scaling.bench.js';
import { consoleListBench } from './console-list.bench.js';
import { coldHydrationBench } from './cold-hydration.bench.js';
import { evidenceBench } from './evidence.bench.js';
import { fidelityBench } from './fidelity.bench.js';
import { listScaleBench } from './list-scale.bench.js';
import { overloadBench } from './overload.bench.js';
import { projectionsBench } from './projections.bench.js';
import { submissionsBench } from './submissions.bench.js';
import { workerRssBench } from './worker-rss.bench.js';
import { zipStreamingBench } from './zip-streaming.bench.js';
import { transparencyBench } from './transparency.bench.js';
import { natsChaosBench } from './nats-chaos.bench.js';
import { witnessBench } from './witness.bench.js';
import { sessionRecordingBench } from './session-recording.bench.js';
import { storageBench } from './storage.bench.js';
import { diffBench } from './diff.bench.js';
import { roleStartBench } from './role-start.bench.js';
import { clusterIdleBench } from './cluster-idle.bench.js';
import { clusterCapacityBench } from './cluster-capacity.bench.js';
import { profileCaptureBench } from './profile-capture.bench.js';

export type BenchLine = Record<string, unknown>;
export const benchmarks: Record<string, () => Promise<BenchLine[]>> = {
  admission: admissionBench,
  'capture-latency': captureLatencyBench,
  'capture-stages': captureStagesBench,
  'capture-cpu': captureCpuBench,
  'worker-rss': workerRssBench,
  submissions: submissionsBench,
  'cold-hydration': coldHydrationBench,
  evidence: evidenceBench,
  projections: projectionsBench,
  'list-scale': listScaleBench,
  'console-list': consoleListBench,
  'cluster-scaling': clusterScalingBench,
  'zip-streaming': zipStreamingBench,
  overload: overloadBench,
  transparency: transparencyBench,
  fidelity: fidelityBench,
  'nats-chaos': natsChaosBench,
  witness: witnessBench,
  'session-recording': sessionRecordingBench,
  storage: storageBench,
  diff: diffBench,
  'role-start': roleStartBench,
  'cluster-idle': clusterIdleBench,
  'cluster-capacity': clusterCapacityBench,
  archive: archiveBench,
  'profile-capture': profileCaptureBench,
};
