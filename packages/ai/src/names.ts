/** pydftracer's constants (`ai_common.py`). */
export const ROOT_NAME = 'ai_root';
export const ROOT_CAT = 'ai_root';
export const ITER_COUNT_NAME = 'count';
export const BLOCK_NAME = 'block';
export const ITER_NAME = 'iter';
export const INIT_NAME = 'init';
