import { admissionBench } from './admission.bench.js';

export type BenchLine = Record<string, unknown>;
export const benchmarks: Record<string, () => Promise<BenchLine[]>> = {
  admission: admissionBench,
};
