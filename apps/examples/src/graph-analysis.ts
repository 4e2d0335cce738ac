/**
 * Graph extraction and analysis (pydftracer's "Dynamo Graph Extraction" quick start): a custom
 * backend receives each captured graph, like torch.compile's backend receives an FX graph; we print
 * it as a table, count its operations, estimate its memory and FLOPs, and find the memory- and
 * compute-bound nodes. A function with a data-dependent branch gives two graphs, one per path (after
 * the graph that ends at the data-dependent read).
 *
 *   DFTRACER_ENABLE=1 node dist/graph-analysis.js
 */
import * as tf from '@tensorflow/tfjs';
import { initializeLog } from '@dftracer/core';
import { compile, type Graph } from '@dftracer/dynamo';
import { loadBackend } from './lib/backend.js';

const dfLogger = initializeLog('graph_analysis', null, -1);
await loadBackend();

// 1. A custom backend (graph extractor): it keeps each graph it is handed
class GraphExtractor {
  readonly graphs: Graph[] = [];
  readonly backend = (graph: Graph) => {
    this.graphs.push(graph);
  };
}

// 2. A model and an input
const model = tf.sequential({ name: 'conv_relu', layers: [tf.layers.conv2d({ inputShape: [224, 224, 3], filters: 16, kernelSize: 3 }), tf.layers.reLU()] });
const exampleInput = tf.randomNormal([1, 224, 224, 3]);

// 3. Extract the graph
const extractor = new GraphExtractor();
const compiledModel = compile(model, { backend: extractor.backend });
tf.tidy(() => compiledModel.predict(exampleInput));

// 4. Use it
console.log(`Captured ${extractor.graphs.length} graph(s)`);
const graph = extractor.graphs[0]!;
graph.printTabular(); // prints the nodes like torch.fx's print_tabular()

console.log('\nop counts', graph.opCounts());
const memory = graph.estimateMemory();
console.log(`memory: ${(memory.total / 2 ** 20).toFixed(2)} MiB (inputs ${memory.inputs} B, params ${memory.params} B, activations ${memory.activations} B)`);
const flops = graph.estimateFlops();
console.log(`FLOPs: ${(flops.total / 1e6).toFixed(1)} M`, flops.byKind);
for (const n of graph.intensity()) console.log(`${n.name} is ${n.bound}-bound (AI=${n.intensity.toFixed(2)} FLOP/B)`);

// A data-dependent branch: one graph per path taken
const graphs: Graph[] = [];
const dynamicModule = compile(
  (x: tf.Tensor) => {
    if ((x.sum().dataSync()[0] ?? 0) > 0) return x.mul(x);
    return x.mul(3);
  },
  { backend: (g: Graph) => graphs.push(g) },
);
const x = tf.randomNormal([10]).abs().add(0.1);
tf.tidy(() => dynamicModule(x));
tf.tidy(() => dynamicModule(x.neg()));
tf.tidy(() => dynamicModule(x)); // the first path again: no new graph
// As with torch.compile: the data-dependent read (the sum) ends one graph (a graph break), and each
// path taken after it is a graph of its own.
console.log(`\nthe branching function gave ${graphs.length} graphs: the sum before the break, then one per path`);
for (const g of graphs) console.log(g.code());

dfLogger.finalize();
console.log(`trace: ${dfLogger.file ?? 'off (set DFTRACER_ENABLE=1)'}`);
