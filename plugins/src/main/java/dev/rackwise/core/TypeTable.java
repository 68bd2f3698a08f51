package dev.rackwise.core;

import java.util.Arrays;

/**
 * The types of docs/rack-optimal.md § 4.1 by their key (class, replica-rack set id, leader
 * rack id or -1, weight bits), numbered in order of first sight: an open-addressing table over
 * parallel primitive arrays, so the per-partition lookup of {@link Instance} hashes four
 * numbers and allocates nothing (a record key in a HashMap was a quarter of a call).
 *
 * <p>Example: keys (0, 1, -1, w), (0, 2, -1, w), (0, 1, -1, w) get ids 0, 1, 0.
 */
final class TypeTable {
    private int[] cls = new int[16];
    private int[] racks = new int[16];
    private int[] leader = new int[16];
    private long[] weight = new long[16];
    /** Slot to type id + 1 (0: empty); its length a power of two, at most half full. */
    private int[] slots = new int[64];
    private int size;
    /** The last key found: runs of one type are common (a topic's partitions). */
    private int last = -1;

    int size() {
        return size;
    }

    int cls(int type) {
        return cls[type];
    }

    int racks(int type) {
        return racks[type];
    }

    int leader(int type) {
        return leader[type];
    }

    long weightBits(int type) {
        return weight[type];
    }

    /** The id of this key, a new one (the next number) when first seen. */
    int of(int c, int r, int l, long w) {
        if (last >= 0 && cls[last] == c && racks[last] == r && leader[last] == l && weight[last] == w) {
            return last;
        }
        int mask = slots.length - 1;
        for (int i = hash(c, r, l, w) & mask;; i = (i + 1) & mask) {
            int t = slots[i] - 1;
            if (t < 0) {
                t = add(c, r, l, w);
                slots[i] = t + 1;
                if (2 * size > slots.length) {
                    rehash();
                }
                return last = t;
            }
            if (cls[t] == c && racks[t] == r && leader[t] == l && weight[t] == w) {
                return last = t;
            }
        }
    }

    private int add(int c, int r, int l, long w) {
        if (size == cls.length) {
            int grown = 2 * size;
            cls = Arrays.copyOf(cls, grown);
            racks = Arrays.copyOf(racks, grown);
            leader = Arrays.copyOf(leader, grown);
            weight = Arrays.copyOf(weight, grown);
        }
        cls[size] = c;
        racks[size] = r;
        leader[size] = l;
        weight[size] = w;
        return size++;
    }

    private void rehash() {
        slots = new int[2 * slots.length];
        int mask = slots.length - 1;
        for (int t = 0; t < size; t++) {
            int i = hash(cls[t], racks[t], leader[t], weight[t]) & mask;
            while (slots[i] != 0) {
                i = (i + 1) & mask;
            }
            slots[i] = t + 1;
        }
    }

    private static int hash(int c, int r, int l, long w) {
        long h = w * 0x9E3779B97F4A7C15L;
        h ^= ((long) c << 42) ^ ((long) r << 21) ^ (l & 0x1FFFFFL);
        h *= 0xC2B2AE3D27D4EB4FL;
        return (int) (h ^ (h >>> 29) ^ (h >>> 47));
    }
}
