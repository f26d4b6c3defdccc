#ifndef NARUMI_COMMON_RADIX_SORT_BITS_H_
#define NARUMI_COMMON_RADIX_SORT_BITS_H_

/** The end bit of a CUB radix sort whose keys are at most largestKey: sorting only those bits saves passes. */

namespace OpenMMNarumi::Common {

/** Bits needed to hold largestKey (at least 1, at most 32). */
constexpr int radixSortEndBit(unsigned int largestKey) {
    int bits = 1;
    while (bits < 32 && (largestKey >> bits) != 0)
        bits++;
    return bits;
}

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_RADIX_SORT_BITS_H_
