/**
 * A plain, bit-by-bit transcription of the thesis's algorithms 4.2–4.4 (with the slip of 4.4
 * fixed: the 0-branch writes pVal[middle + nClear]). Deliberately naive: it is the reference the
 * compiled scheme in src/keys/thesis.ts must equal bit for bit. Bit arrays are MSB-first.
 */
import type { SchemeKey } from '../../src/keys/thesis.ts';

export type Bits = number[];

export function toBits(value: bigint, b: number): Bits {
  const bits: Bits = [];
  for (let i = b - 1; i >= 0; i--) bits.push(Number((value >> BigInt(i)) & 1n));
  return bits;
}

export function fromBits(bits: Bits): bigint {
  let v = 0n;
  for (const bit of bits) v = (v << 1n) | BigInt(bit);
  return v;
}

/** Algorithm 4.4, ApplyKey. */
export function applyKey(val: Bits, key: SchemeKey, b: number, keySize: number): Bits {
  const pVal: Bits = new Array(b).fill(0);
  let lowerExtreme = 0;
  let upperExtreme = keySize - 1;
  while (upperExtreme < b) {
    // The printed (lower + upper) / 2 rounds down to the last index of the first half; the
    // second half starts one further.
    const middle = lowerExtreme + keySize / 2;
    let nSet = 0;
    let nClear = 0;
    for (let i = 0; i < keySize; i++) {
      if (key[i] === 1) {
        if (val[lowerExtreme + i] === 1) pVal[lowerExtreme + nSet] = 1;
        else pVal[lowerExtreme + nSet] = 0;
        nSet = nSet + 1;
      } else {
        if (val[lowerExtreme + i] === 1) pVal[middle + nClear] = 1;
        else pVal[middle + nClear] = 0;
        nClear = nClear + 1;
      }
    }
    lowerExtreme = lowerExtreme + keySize;
    upperExtreme = upperExtreme + keySize;
  }
  return pVal;
}

/** Algorithm 4.3, ApplyPermutation. */
export function applyPermutation(val: bigint, keys: readonly SchemeKey[], b: number): bigint {
  let toShuffle = toBits(val, b);
  let pVal = toShuffle;
  for (let i = 0; i < keys.length; i++) {
    const keySize = b / 2 ** i;
    pVal = applyKey(toShuffle, keys[i] as SchemeKey, b, keySize);
    toShuffle = pVal;
  }
  return fromBits(pVal);
}

/**
 * Algorithm 4.2: identifiers of a set of already-hashed values (`integersToProcess`, each < 2^b)
 * under the schemes (n sets of m schemes).
 */
export function computeIdentifiers(
  integersToProcess: readonly bigint[],
  schemes: readonly (readonly (readonly SchemeKey[])[])[],
  b: number,
): bigint[] {
  const ids: bigint[] = [];
  for (const permutationSet of schemes) {
    let currentID: bigint | null = null;
    for (const permutation of permutationSet) {
      let min: bigint | null = null;
      for (const valTP of integersToProcess) {
        const pVal = applyPermutation(valTP, permutation, b);
        if (min === null || pVal < min) min = pVal;
      }
      currentID = currentID === null ? min : currentID ^ (min as bigint);
    }
    ids.push(currentID as bigint);
  }
  return ids;
}
