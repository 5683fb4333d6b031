/**
 * How many hex digits of the arguments' SHA-256 a button carries: 128 bits. The fingerprint is not a
 * secret (it sits in the message for anyone to read); what it must do is tie a click to the arguments
 * the clicker was shown. Passing it with other arguments would take a second preimage of a 128-bit
 * prefix (about 2^128 hashes), and a prepared pair of colliding argument sets (about 2^64) would still
 * need both to become one request, whose arguments the store fixes when the row is made. Shorter
 * prefixes would bring the pair within reach; the whole 64 digits only make every block id longer.
 */
const ARGS_FINGERPRINT_LENGTH = 32;

const fingerprintPattern = new RegExp(`^[0-9a-f]{${ARGS_FINGERPRINT_LENGTH}}$`);

/** The fixed-length form of an approval's `argsHash` that cards put in their buttons. */
export function argsFingerprint(argsHash: string): string {
  return argsHash.toLowerCase().slice(0, ARGS_FINGERPRINT_LENGTH);
}

/** Whether text has the shape of a fingerprint (so a parser can tell it from anything else). */
export function isArgsFingerprint(text: string): boolean {
  return fingerprintPattern.test(text);
}
