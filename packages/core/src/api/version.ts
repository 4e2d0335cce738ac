declare const __DFTRACER_VERSION__: string | undefined;

/** This package's version (`start` events carry it), set at build time. */
export const VERSION = typeof __DFTRACER_VERSION__ === 'string' ? __DFTRACER_VERSION__ : '0.0.0-dev';
