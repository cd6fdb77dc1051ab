//! A slice that several threads fill at once, each at indices of its own:
//! a pass over every resident in parallel writes each one's entry at its
//! roster index, which no other resident has.

use std::marker::PhantomData;

/// `slice`, written at distinct indices from the threads of one pass.
pub(crate) struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: it hands out no references; `put` moves a `T` into the slice from
// whichever thread calls it, and the callers' contract keeps two threads off
// one index.
unsafe impl<T: Send> Send for Disjoint<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}

impl<'a, T: Copy> Disjoint<'a, T> {
    /// Borrows `slice` for the pass.
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        Self {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: PhantomData,
        }
    }

    /// Writes `value` at `i` (out of range: a panic, nothing written).
    ///
    /// # Safety
    /// No other call may write `i` during the same pass.
    pub(crate) unsafe fn put(&self, i: usize, value: T) {
        assert!(i < self.len, "index {i} past {}", self.len);
        // SAFETY: in bounds (checked above) of a slice borrowed mutably for
        // 'a; `T: Copy` has nothing to drop; the caller keeps other threads
        // off `i`.
        unsafe { self.ptr.add(i).write(value) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_fill_their_own_indices() {
        let mut v = vec![0u32; 1000];
        let d = Disjoint::new(&mut v);
        std::thread::scope(|s| {
            for t in 0..4 {
                let d = &d;
                s.spawn(move || {
                    for i in (t..1000).step_by(4) {
                        // SAFETY: thread t alone writes the indices ≡ t mod 4.
                        unsafe { d.put(i, i as u32 * 2) };
                    }
                });
            }
        });
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 * 2));
    }
}
