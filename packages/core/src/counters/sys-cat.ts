/** The category of the system counters. */
export const SYS_CAT = 'sys';
