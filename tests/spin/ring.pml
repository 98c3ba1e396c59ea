/* SPDX-License-Identifier: MIT */
/* A model of a worker's ring (src/threads/mt.c): the owner pushes at bottom
 * (half of a full ring overflowing to the injector) and takes one task
 * from top; a thief takes half from top. Every take reads top, bottom and
 * the slots in separate steps and claims them with one compare-and-swap
 * of top, as the C code does. Checked exhaustively (tests/spin/run.sh):
 * no task is lost and none is taken twice. Spin's interleavings are
 * sequentially consistent: the model checks the algorithm, the C code's
 * acquire/release orders are checked by TSan (tests/test_mt.c). */
#define RING 2
#define TASKS 5
#define THIEF_TAKES 2

byte top, bottom;
byte slot[RING];
byte taken[TASKS + 1]; /* how many times each task (1..TASKS) was taken */
bool thief_done;

/* Takes up to max tasks (half of those queued, rounded up, if half),
 * counting each in taken[]. Its variables are the caller's (an inline
 * has none of its own): t0, n, k, got. */
inline take(max, half)
{
    t0 = top;
    do
    :: n = bottom - t0;
        if
        :: n == 0 -> break
        :: else
        fi;
        if
        :: half -> n = n - n / 2
        :: else
        fi;
        if
        :: n > max -> n = max
        :: else
        fi;
        k = 0;
        do
        :: k < n -> got[k] = slot[(t0 + k) % RING]; k++
        :: else -> break
        od;
        if
        :: atomic { top == t0 -> top = t0 + n };
            k = 0;
            do
            :: k < n -> taken[got[k]]++; assert(taken[got[k]] == 1); k++
            :: else -> break
            od;
            break
        :: atomic { top != t0 -> t0 = top } /* the swap failed: again */
        fi
    od
}

active proctype owner()
{
    byte t0, n, k, i = 1, b, j;
    byte got[RING];
    do
    :: i <= TASKS ->
        b = bottom;
        if
        :: b - top >= RING -> take(RING / 2, false) /* overflow: to the injector */
        :: else
        fi;
        b = bottom;
        if
        :: b - top < RING -> slot[b % RING] = i; bottom = b + 1
        :: else -> taken[i]++ /* the ring filled again: the task goes with the batch */
        fi;
        i++;
        if
        :: take(1, false)
        :: skip
        fi
    :: else -> break
    od;
    thief_done;
    do
    :: top != bottom -> take(1, false)
    :: else -> break
    od;
    j = 1;
    do
    :: j <= TASKS -> assert(taken[j] == 1); j++
    :: else -> break
    od
}

active proctype thief()
{
    byte t0, n, k, rounds = 0;
    byte got[RING];
    do
    :: rounds < THIEF_TAKES -> take(RING, true); rounds++
    :: else -> break
    od;
    thief_done = true
}
