/**
 * Architecture of the corner model (see README.md): a small encoder-decoder (U-Net-like, additive skips).
 *
 *   128x128x3 -> conv s2 12 -> conv s2 24 [skip A, 32x32] -> conv s2 48 -> conv 48 [skip B, 16x16]
 *   -> conv s2 64 -> conv 64 -> conv 64 (8x8; the receptive field covers the whole input, which is what tells
 *   TL from TR in clutter) -> 1x1 24, up x2 + 1x1(B) -> conv 24 -> up x2 + 1x1(A) -> conv 16 -> 1x1 4 logits
 *   (32x32x4, corners in geometric order); and from the 8x8 features, global mean -> dense 4 orientation logits.
 *   All 3x3 convs ReLU; ~23 M multiply-adds per image.
 *
 * All kernels use seeded He-normal initialisers, so the initial weights are a pure function of the seed.
 */
import type * as TF from '@tensorflow/tfjs';
import { KEYPOINT_GRID, KEYPOINT_INPUT } from '../src/models/keypoints';

type Tf = typeof TF;

export function buildKeypointModel(tf: Tf, seed: number): TF.LayersModel {
  let k = 0;
  const conv = (x: TF.SymbolicTensor, filters: number, size: number, strides: number, name: string, activation: 'relu' | 'linear' = 'relu') =>
    tf.layers
      .conv2d({
        filters,
        kernelSize: size,
        strides,
        padding: 'same',
        activation,
        kernelInitializer: tf.initializers.heNormal({ seed: seed * 100 + k++ }),
        biasInitializer: 'zeros',
        name,
      })
      .apply(x) as TF.SymbolicTensor;
  const input = tf.input({ shape: [KEYPOINT_INPUT, KEYPOINT_INPUT, 3], name: 'image' });
  let x = conv(input, 12, 3, 2, 'enc1'); // 64x64
  const a = conv(x, 24, 3, 2, 'enc2'); // 32x32  skip A
  x = conv(a, 48, 3, 2, 'enc3'); // 16x16
  const b = conv(x, 48, 3, 1, 'enc4'); // 16x16  skip B
  x = conv(b, 64, 3, 2, 'enc5'); // 8x8
  x = conv(x, 64, 3, 1, 'enc6');
  const c = conv(x, 64, 3, 1, 'enc7');
  // orientation head: which geometric corner holds the card's printed top-left (0, 90, 180, 270 deg clockwise)
  let o = tf.layers.globalAveragePooling2d({ name: 'orient_pool' }).apply(c) as TF.SymbolicTensor;
  o = tf.layers
    .dense({ units: 4, kernelInitializer: tf.initializers.glorotNormal({ seed: seed * 100 + k++ }), name: 'orientation' })
    .apply(o) as TF.SymbolicTensor;
  x = conv(c, 24, 1, 1, 'lat8');
  x = tf.layers.upSampling2d({ size: [2, 2], name: 'up16' }).apply(x) as TF.SymbolicTensor;
  x = tf.layers.add({ name: 'add16' }).apply([x, conv(b, 24, 1, 1, 'lat16', 'linear')]) as TF.SymbolicTensor;
  x = conv(x, 24, 3, 1, 'dec16');
  x = tf.layers.upSampling2d({ size: [2, 2], name: 'up32' }).apply(x) as TF.SymbolicTensor;
  x = tf.layers.add({ name: 'add32' }).apply([x, conv(a, 24, 1, 1, 'lat32', 'linear')]) as TF.SymbolicTensor;
  x = conv(x, 16, 3, 1, 'dec32');
  const out = conv(x, 4, 1, 1, 'heatmaps', 'linear');
  const model = tf.model({ inputs: input, outputs: [out, o], name: 'corners' });
  const shape = model.outputs[0]!.shape;
  if (shape[1] !== KEYPOINT_GRID || shape[2] !== KEYPOINT_GRID) throw new Error(`unexpected output shape ${shape}`);
  return model;
}
