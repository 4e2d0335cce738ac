/**
 * The encoder's one door: `BatchEncoder.encode(meta, columns)` turns a flush into the bytes the
 * trace file appends (zlib, or plain text).
 */
export { BatchEncoder, type Encoding } from './batch-encoder.js';
export { ENCODER_STATS_BYTES, EncoderStats, type EncoderCounts } from './encoder-stats.js';
export { jsDeflate, threadDeflate, zlibDeflate, type Deflate } from './deflate.js';
