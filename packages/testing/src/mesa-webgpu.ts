/**
 * WebGPU without a GPU, for tests: Dawn's OpenGL ES backend on Mesa's software renderer (Debian's
 * libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri, which CI installs), with EGL on no display.
 */
export const MESA_WEBGPU = { dawnOptions: ['backend=opengles'], featureLevel: 'compatibility' } as const;

/**
 * Runs `setUp` (a `loadTf({ prefer: ['webgpu'], webgpu: MESA_WEBGPU, … })`) and returns '' when
 * it worked, else why not, said loudly once so that a skipped suite never passes unnoticed.
 */
export async function onMesaWebGPU(setUp: () => Promise<unknown>): Promise<string> {
  process.env.EGL_PLATFORM ??= 'surfaceless';
  // llvmpipe starts a thread per core: two keep a test beside others on a small machine.
  process.env.LP_NUM_THREADS ??= '2';
  try {
    await setUp();
    return '';
  } catch (e) {
    const reason = (e as Error)?.message ?? String(e);
    console.warn(`\n!!! WebGPU on Mesa is not available here (${reason}): SKIPPING the WebGPU tests (CI installs libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri) !!!\n`);
    return reason;
  }
}
