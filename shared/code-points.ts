// A text's length in characters as rlx counts them everywhere a length is a setting or a
// reward (`length(completion)`, a text module's turn limits): Unicode code points, so an emoji
// is one character and a lone surrogate is one too. Here, below every layer, because the reward
// verifier and the env hosts both count with it.

/** Number of characters (code points) in `s`. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const unit = s.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i++;
    }
  }
  return n;
}
