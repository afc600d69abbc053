// The batch fast path's number reader (BatchScanner.hpp): a JSON number token to a double,
// eight digits at a time. Not part of the module's C interface.
//
// simdjson 3.0.1's on-demand `get_double` folds a number into its mantissa one digit per step,
// each step waiting for the one before; a full-precision double has 15-17 digits, so on what
// devices send that chain is most of a number's cost. This reader folds eight digits at once
// (SWAR, as simdjson's DOM parser does for one group of the fraction) and the last one to seven
// in one step as well, then converts the mantissa and exponent with simdjson's own
// `compute_float_64`, so every value it returns is the one simdjson's DOM parser returns. What it
// does not read exactly (more than 19 significant digits, exponents outside simdjson's table, the
// rare mantissas Eisel-Lemire cannot decide, and anything that is not a JSON number followed by a
// separator) it declines, and the batch goes to the DOM path. Figures: docs/performance.md
// ("Numbers eight digits at a time").
#ifndef WEARABLE_GATEWAY_DECIMAL_READER_HPP
#define WEARABLE_GATEWAY_DECIMAL_READER_HPP

#include "DocumentReader.hpp"

#include <cstdint>
#include <cstring>
#include <simdjson.h>

namespace wg {
namespace fast {

/// Per byte of `word` (eight bytes of text, the first in the lowest byte): zero where it is an
/// ASCII digit. Digits are 0x30-0x39: the high nibble is 3, and adding 6 keeps it 3. A carry of
/// the addition only leaves a byte that is not a digit, so every byte up to the first non-digit
/// is marked correctly.
WG_ALWAYS_INLINE uint64_t nonDigitBytes(uint64_t word) {
    return ((word & 0xF0F0F0F0F0F0F0F0) | (((word + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) ^ 0x3333333333333333;
}

/// The value of eight ASCII digits (the first in the lowest byte); zero bytes count as leading zeros.
WG_ALWAYS_INLINE uint32_t foldEight(uint64_t word) {
    word = (word & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8;      // pairs of digits
    word = (word & 0x00FF00FF00FF00FF) * 6553601 >> 16;  // groups of four
    return uint32_t((word & 0x0000FFFF0000FFFF) * 42949672960001 >> 32);
}

/// Folds the digits at `p` into `mantissa`, eight at a time, and the last one to seven in one
/// step as well (shifted up so that the bytes below them read as leading zeros); returns the
/// first byte after them. Reads eight bytes at a time: the input is padded (SIMDJSON_PADDING,
/// WG_JSON_READ_AHEAD). The mantissa may wrap: the caller counts the digits and declines past 19.
WG_ALWAYS_INLINE const uint8_t *foldDigits(const uint8_t *p, uint64_t &mantissa) {
    static constexpr uint64_t powersOfTen[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    for (;;) {
        uint64_t word;
        std::memcpy(&word, p, sizeof word);
        const uint64_t nonDigits = nonDigitBytes(word);
        if (nonDigits == 0) {
            mantissa = mantissa * 100000000 + foldEight(word);
            p += 8;
            continue;
        }
        const unsigned digits = unsigned(__builtin_ctzll(nonDigits)) / 8;
        if (digits != 0) {
            mantissa = mantissa * powersOfTen[digits] + foldEight(word << (64 - 8 * digits));
            p += digits;
        }
        return p;
    }
}

/// Whether `c` may follow a scalar (a number, `true`, `null`) inside an object or array: a
/// separator, a closing bracket or JSON whitespace.
WG_ALWAYS_INLINE bool endsValue(uint8_t c) {
    return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// Reads the JSON number at `p` into `out`, exactly as simdjson's DOM parser reads it (integers
/// included, converted to the nearest double). Returns the first byte after the number, or null
/// when it is not read (see the file's comment); `out` is then unspecified.
WG_ALWAYS_INLINE const uint8_t *readDecimal(const uint8_t *p, double &out) {
    const bool negative = *p == '-';
    p += negative;
    uint64_t mantissa = 0;
    size_t significant = 0;
    if (*p == '0') {
        p++;  // a lone zero: "01" is not JSON
        if (uint8_t(*p - '0') <= 9) { return nullptr; }
    } else {
        const uint8_t *start = p;
        p = foldDigits(p, mantissa);
        significant = size_t(p - start);
        if (significant == 0) { return nullptr; }
    }
    int64_t exponent = 0;
    if (*p == '.') {
        const uint8_t *fraction = ++p;
        // Zeros before the first significant digit add nothing to the mantissa or the count.
        if (mantissa == 0) {
            while (*p == '0') { p++; }
        }
        const uint8_t *start = p;
        p = foldDigits(p, mantissa);
        if (p == fraction) { return nullptr; }  // "1." is not JSON
        significant += size_t(p - start);
        exponent = fraction - p;
    }
    if ((*p | 0x20) == 'e') {
        p++;
        const bool negativeExponent = *p == '-';
        p += negativeExponent || *p == '+';
        const uint8_t *start = p;
        uint64_t written = 0;
        for (uint8_t digit = uint8_t(*p - '0'); digit <= 9; digit = uint8_t(*p - '0')) {
            // Saturates far outside simdjson's powers of ten (checked below), so it cannot wrap.
            if (written < 100000) { written = written * 10 + digit; }
            p++;
        }
        if (p == start) { return nullptr; }  // "1e" is not JSON
        exponent += negativeExponent ? -int64_t(written) : int64_t(written);
    }
    if (significant > 19 || !endsValue(*p) || exponent < simdjson::internal::smallest_power
        || exponent > simdjson::internal::largest_power) {
        return nullptr;
    }
    return simdjson::builtin::numberparsing::compute_float_64(exponent, mantissa, negative, out) ? p : nullptr;
}

} // namespace fast
} // namespace wg

#endif
