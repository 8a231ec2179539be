/**
 * Architectures of the three severity models (see README.md). Plain conv stacks with ReLU, seeded He-normal
 * initialisers; corner and edge heads pool globally (mean and max: whitening is an area, a chip a local peak).
 */
import type * as TF from '@tensorflow/tfjs';
import { CORNER_INPUT, EDGE_INPUT, SURFACE_INPUT, SURFACE_GRID } from '../src/models/severity';

type Tf = typeof TF;
type Sym = TF.SymbolicTensor;

function builder(tf: Tf, seed: number) {
  let k = 0;
  const init = () => tf.initializers.heNormal({ seed: seed * 100 + k++ });
  const conv = (x: Sym, filters: number, size: number, strides: number | [number, number], name: string, activation: 'relu' | 'linear' | 'sigmoid' = 'relu') =>
    tf.layers.conv2d({ filters, kernelSize: size, strides, padding: 'same', activation, kernelInitializer: init(), name }).apply(x) as Sym;
  const head = (x: Sym, outputs: number) => {
    const avg = tf.layers.globalAveragePooling2d({ name: 'gap' }).apply(x) as Sym;
    const max = tf.layers.globalMaxPooling2d({ name: 'gmp' }).apply(x) as Sym;
    let h = tf.layers.concatenate({ name: 'pool' }).apply([avg, max]) as Sym;
    h = tf.layers.dense({ units: 32, activation: 'relu', kernelInitializer: init(), name: 'fc' }).apply(h) as Sym;
    return tf.layers
      .dense({ units: outputs, activation: 'sigmoid', kernelInitializer: tf.initializers.glorotNormal({ seed: seed * 100 + k++ }), name: 'severity' })
      .apply(h) as Sym;
  };
  return { conv, head };
}

/** 48x48x3 -> [whitening, rounding, ding]. */
export function buildCornerModel(tf: Tf, seed: number): TF.LayersModel {
  const { conv, head } = builder(tf, seed);
  const input = tf.input({ shape: [CORNER_INPUT, CORNER_INPUT, 3], name: 'corner' });
  let x = conv(input, 12, 3, 1, 'c1'); // 48
  x = conv(x, 24, 3, 2, 'c2'); // 24
  x = conv(x, 32, 3, 2, 'c3'); // 12
  x = conv(x, 32, 3, 1, 'c4');
  x = conv(x, 64, 3, 2, 'c5'); // 6
  return tf.model({ inputs: input, outputs: head(x, 3), name: 'severity_corner' });
}

/** 24 (deep) x 256 (along) x 3 -> [whitening, depth, chips]. */
export function buildEdgeModel(tf: Tf, seed: number): TF.LayersModel {
  const { conv, head } = builder(tf, seed);
  const input = tf.input({ shape: [EDGE_INPUT.depth, EDGE_INPUT.along, 3], name: 'edge' });
  let x = conv(input, 16, 3, [1, 2], 'e1'); // 24x128 (full depth resolution)
  x = conv(x, 24, 3, 2, 'e2'); // 12x64
  x = conv(x, 32, 3, 2, 'e3'); // 6x32
  x = conv(x, 32, 3, 1, 'e4');
  x = conv(x, 48, 3, 2, 'e5'); // 3x16
  return tf.model({ inputs: input, outputs: head(x, 3), name: 'severity_edge' });
}

/** 320x224x3 -> 10x7x1 tile severities (total stride 32). */
export function buildSurfaceModel(tf: Tf, seed: number): TF.LayersModel {
  const { conv } = builder(tf, seed);
  const input = tf.input({ shape: [SURFACE_INPUT.height, SURFACE_INPUT.width, 3], name: 'surface' });
  let x = conv(input, 8, 3, 2, 's1'); // 160x112
  x = conv(x, 16, 3, 2, 's2'); // 80x56
  x = conv(x, 32, 3, 2, 's3'); // 40x28
  x = conv(x, 48, 3, 2, 's4'); // 20x14
  x = conv(x, 64, 3, 2, 's5'); // 10x7
  x = conv(x, 64, 3, 1, 's6');
  const out = conv(x, 1, 1, 1, 'tiles', 'sigmoid');
  const model = tf.model({ inputs: input, outputs: out, name: 'severity_surface' });
  const shape = model.outputs[0]!.shape;
  if (shape[1] !== SURFACE_GRID.rows || shape[2] !== SURFACE_GRID.cols) throw new Error(`unexpected surface output ${shape}`);
  return model;
}
