;; The proof-of-work search of widget/solver.ts with the whole nonce loop inside WebAssembly:
;; for one puzzle, the first decimal nonce n (counting up from start) such that SHA-256 of
;; prefix || decimal(n) starts with `bits` zero bits. Eight nonces at a time: two groups of
;; four (n..n+3 and n+4..n+7), one nonce per lane of a 128-bit SIMD vector, their rounds
;; interleaved so that one group's dependent steps overlap the other's (22 % more hashes a
;; CPU-second than one group in V8). Each message is one 64-byte block (prefix plus digits at
;; most 55 bytes). Only the first word of each digest is computed to its end (difficulty is at
;; most 32 bits), so a found nonce must still be checked by the caller.
;;
;; Memory (one 64 KiB page):
;;   0     the 64 round constants K, as i32 (SHA-256, FIPS 180-4 section 4.2.2)
;;   1024  group 0's W[0..63], each a v128 of four lanes; W[0..15] is the message block of its
;;         four nonces, word k of lane l at 1024 + 16k + 4l, held as the big-endian word's value
;;   2048  group 1's W[0..63], laid out the same way
;;   3072  the first digest words of group 0, then (3088) of group 1
;;   4096  the prefix bytes, written by the caller
;;   4160  the digit count of each of the eight lanes' nonces (i32 per lane)
;;
;; solve(prefixLength, bits, start, rounds) -> the nonce found, -1 when `rounds` groups of
;; eight nonces found none (the caller checks for cancellation and calls again from
;; start + 8 * rounds), -2 when prefix plus 16 digits would not fit one block.
(module
  (memory (export "memory") 1)
  (data (i32.const 0)
    "\98\2f\8a\42\91\44\37\71\cf\fb\c0\b5\a5\db\b5\e9\5b\c2\56\39\f1\11\f1\59\a4\82\3f\92\d5\5e\1c\ab"
    "\98\aa\07\d8\01\5b\83\12\be\85\31\24\c3\7d\0c\55\74\5d\be\72\fe\b1\de\80\a7\06\dc\9b\74\f1\9b\c1"
    "\c1\69\9b\e4\86\47\be\ef\c6\9d\c1\0f\cc\a1\0c\24\6f\2c\e9\2d\aa\84\74\4a\dc\a9\b0\5c\da\88\f9\76"
    "\52\51\3e\98\6d\c6\31\a8\c8\27\03\b0\c7\7f\59\bf\f3\0b\e0\c6\47\91\a7\d5\51\63\ca\06\67\29\29\14"
    "\85\0a\b7\27\38\21\1b\2e\fc\6d\2c\4d\13\0d\38\53\54\73\0a\65\bb\0a\6a\76\2e\c9\c2\81\85\2c\72\92"
    "\a1\e8\bf\a2\4b\66\1a\a8\70\8b\4b\c2\a3\51\6c\c7\19\e8\92\d1\24\06\99\d6\85\35\0e\f4\70\a0\6a\10"
    "\16\c1\a4\19\08\6c\37\1e\4c\77\48\27\b5\bc\b0\34\b3\0c\1c\39\4a\aa\d8\4e\4f\ca\9c\5b\f3\6f\2e\68"
    "\ee\82\8f\74\6f\63\a5\78\14\78\c8\84\08\02\c7\8c\fa\ff\be\90\eb\6c\50\a4\f7\a3\f9\be\f2\78\71\c6")

  ;; Byte p of lane j's message: the big-endian word's byte p&3 is the stored i32's byte 3-(p&3).
  (func $byteAt (param $j i32) (param $p i32) (result i32)
    (i32.add
      (i32.add
        (i32.add (i32.const 1024) (i32.shl (i32.shr_u (local.get $j) (i32.const 2)) (i32.const 10)))
        (i32.shl (i32.shr_u (local.get $p) (i32.const 2)) (i32.const 4)))
      (i32.add (i32.shl (i32.and (local.get $j) (i32.const 3)) (i32.const 2)) (i32.sub (i32.const 3) (i32.and (local.get $p) (i32.const 3))))))

  ;; Writes lane j's whole block: prefix, decimal(n), the 0x80 pad, zeros, the bit length.
  (func $setLane (param $j i32) (param $plen i32) (param $n f64)
    (local $k i32) (local $d i32) (local $m f64) (local $q f64)
    (local.set $k (i32.const 0))
    (loop $clear
      (i32.store (i32.sub (call $byteAt (local.get $j) (i32.shl (local.get $k) (i32.const 2))) (i32.const 3)) (i32.const 0))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $clear (i32.lt_u (local.get $k) (i32.const 16))))
    (local.set $k (i32.const 0))
    (block $done
      (loop $prefix
        (br_if $done (i32.ge_u (local.get $k) (local.get $plen)))
        (i32.store8 (call $byteAt (local.get $j) (local.get $k)) (i32.load8_u offset=4096 (local.get $k)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $prefix)))
    ;; digit count of n
    (local.set $d (i32.const 1))
    (local.set $m (local.get $n))
    (block $counted
      (loop $count
        (br_if $counted (f64.lt (local.get $m) (f64.const 10)))
        (local.set $m (f64.floor (f64.div (local.get $m) (f64.const 10))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $count)))
    ;; digits, last first
    (local.set $m (local.get $n))
    (local.set $k (i32.add (local.get $plen) (local.get $d)))
    (loop $digit
      (local.set $k (i32.sub (local.get $k) (i32.const 1)))
      (local.set $q (f64.floor (f64.div (local.get $m) (f64.const 10))))
      (i32.store8 (call $byteAt (local.get $j) (local.get $k))
        (i32.add (i32.const 48) (i32.trunc_f64_u (f64.sub (local.get $m) (f64.mul (local.get $q) (f64.const 10))))))
      (local.set $m (local.get $q))
      (br_if $digit (i32.gt_u (local.get $k) (local.get $plen))))
    (local.set $k (i32.add (local.get $plen) (local.get $d)))
    (i32.store8 (call $byteAt (local.get $j) (local.get $k)) (i32.const 0x80))
    (i32.store (i32.sub (call $byteAt (local.get $j) (i32.const 60)) (i32.const 3)) (i32.shl (local.get $k) (i32.const 3)))
    (i32.store offset=4160 (i32.shl (local.get $j) (i32.const 2)) (local.get $d)))

  ;; Adds 8 to lane j's decimal nonce in place; returns 1 when it needs one more digit (the
  ;; caller then rewrites the lane).
  (func $bump (param $j i32) (param $plen i32) (result i32)
    (local $p i32) (local $c i32) (local $addr i32) (local $carry i32)
    (local.set $carry (i32.const 8))
    (local.set $p (i32.sub (i32.add (local.get $plen) (i32.load offset=4160 (i32.shl (local.get $j) (i32.const 2)))) (i32.const 1)))
    (block $grow
      (loop $next
        (local.set $addr (call $byteAt (local.get $j) (local.get $p)))
        (local.set $c (i32.add (i32.load8_u (local.get $addr)) (local.get $carry)))
        (if (i32.le_u (local.get $c) (i32.const 57))
          (then (i32.store8 (local.get $addr) (local.get $c)) (return (i32.const 0))))
        (i32.store8 (local.get $addr) (i32.sub (local.get $c) (i32.const 10)))
        (local.set $carry (i32.const 1))
        (br_if $grow (i32.eq (local.get $p) (local.get $plen)))
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; SHA-256 of the eight lanes' blocks (two groups of four, interleaved so that each round of
  ;; one group overlaps the other's); stores the first word of each digest at 3072 and 3088.
  (func $firstWords
    (local $a v128) (local $b v128) (local $c v128) (local $d v128) (local $e v128) (local $f v128) (local $g v128) (local $h v128) (local $a2 v128) (local $b2 v128) (local $c2 v128) (local $d2 v128) (local $e2 v128) (local $f2 v128) (local $g2 v128) (local $h2 v128)
    (local $x v128) (local $y v128) (local $t1 v128) (local $t12 v128) (local $w i32) (local $k i32)
    (local.set $a (i32x4.splat (i32.const 0x6a09e667)))
    (local.set $b (i32x4.splat (i32.const 0xbb67ae85)))
    (local.set $c (i32x4.splat (i32.const 0x3c6ef372)))
    (local.set $d (i32x4.splat (i32.const 0xa54ff53a)))
    (local.set $e (i32x4.splat (i32.const 0x510e527f)))
    (local.set $f (i32x4.splat (i32.const 0x9b05688c)))
    (local.set $g (i32x4.splat (i32.const 0x1f83d9ab)))
    (local.set $h (i32x4.splat (i32.const 0x5be0cd19)))
    (local.set $a2 (i32x4.splat (i32.const 0x6a09e667)))
    (local.set $b2 (i32x4.splat (i32.const 0xbb67ae85)))
    (local.set $c2 (i32x4.splat (i32.const 0x3c6ef372)))
    (local.set $d2 (i32x4.splat (i32.const 0xa54ff53a)))
    (local.set $e2 (i32x4.splat (i32.const 0x510e527f)))
    (local.set $f2 (i32x4.splat (i32.const 0x9b05688c)))
    (local.set $g2 (i32x4.splat (i32.const 0x1f83d9ab)))
    (local.set $h2 (i32x4.splat (i32.const 0x5be0cd19)))
    ;; the message schedules: W[t] = s0(W[t-15]) + W[t-7] + s1(W[t-2]) + W[t-16], t = 16..63
    (local.set $w (i32.const 256))
    (loop $schedule
      (local.set $x (v128.load offset=784 (local.get $w)))
      (local.set $y (v128.load offset=992 (local.get $w)))
      (v128.store offset=1024 (local.get $w)
        (i32x4.add
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $x) (i32.const 7)) (i32x4.shl (local.get $x) (i32.const 25)))
                (v128.or (i32x4.shr_u (local.get $x) (i32.const 18)) (i32x4.shl (local.get $x) (i32.const 14))))
              (i32x4.shr_u (local.get $x) (i32.const 3)))
            (v128.load offset=912 (local.get $w)))
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $y) (i32.const 17)) (i32x4.shl (local.get $y) (i32.const 15)))
                (v128.or (i32x4.shr_u (local.get $y) (i32.const 19)) (i32x4.shl (local.get $y) (i32.const 13))))
              (i32x4.shr_u (local.get $y) (i32.const 10)))
            (v128.load offset=768 (local.get $w)))))
      (local.set $x (v128.load offset=1808 (local.get $w)))
      (local.set $y (v128.load offset=2016 (local.get $w)))
      (v128.store offset=2048 (local.get $w)
        (i32x4.add
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $x) (i32.const 7)) (i32x4.shl (local.get $x) (i32.const 25)))
                (v128.or (i32x4.shr_u (local.get $x) (i32.const 18)) (i32x4.shl (local.get $x) (i32.const 14))))
              (i32x4.shr_u (local.get $x) (i32.const 3)))
            (v128.load offset=1936 (local.get $w)))
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $y) (i32.const 17)) (i32x4.shl (local.get $y) (i32.const 15)))
                (v128.or (i32x4.shr_u (local.get $y) (i32.const 19)) (i32x4.shl (local.get $y) (i32.const 13))))
              (i32x4.shr_u (local.get $y) (i32.const 10)))
            (v128.load offset=1792 (local.get $w)))))
      (local.set $w (i32.add (local.get $w) (i32.const 16)))
      (br_if $schedule (i32.lt_u (local.get $w) (i32.const 1024))))
    (local.set $w (i32.const 0))
    (local.set $k (i32.const 0))
    (loop $rounds
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $h)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $e) (i32.const 6)) (i32x4.shl (local.get $e) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $e) (i32.const 11)) (i32x4.shl (local.get $e) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $e) (i32.const 25)) (i32x4.shl (local.get $e) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $f) (local.get $g) (local.get $e))
            (i32x4.add (v128.load32_splat offset=0 (local.get $k)) (v128.load offset=1024 (local.get $w))))))
      (local.set $d (i32x4.add (local.get $d) (local.get $t1)))
      (local.set $h
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $a) (i32.const 2)) (i32x4.shl (local.get $a) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $a) (i32.const 13)) (i32x4.shl (local.get $a) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $a) (i32.const 22)) (i32x4.shl (local.get $a) (i32.const 10))))
            (v128.bitselect (local.get $c) (local.get $a) (v128.xor (local.get $a) (local.get $b))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $h2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $e2) (i32.const 6)) (i32x4.shl (local.get $e2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $e2) (i32.const 11)) (i32x4.shl (local.get $e2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $e2) (i32.const 25)) (i32x4.shl (local.get $e2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $f2) (local.get $g2) (local.get $e2))
            (i32x4.add (v128.load32_splat offset=0 (local.get $k)) (v128.load offset=2048 (local.get $w))))))
      (local.set $d2 (i32x4.add (local.get $d2) (local.get $t12)))
      (local.set $h2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $a2) (i32.const 2)) (i32x4.shl (local.get $a2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $a2) (i32.const 13)) (i32x4.shl (local.get $a2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $a2) (i32.const 22)) (i32x4.shl (local.get $a2) (i32.const 10))))
            (v128.bitselect (local.get $c2) (local.get $a2) (v128.xor (local.get $a2) (local.get $b2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $g)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $d) (i32.const 6)) (i32x4.shl (local.get $d) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $d) (i32.const 11)) (i32x4.shl (local.get $d) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $d) (i32.const 25)) (i32x4.shl (local.get $d) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $e) (local.get $f) (local.get $d))
            (i32x4.add (v128.load32_splat offset=4 (local.get $k)) (v128.load offset=1040 (local.get $w))))))
      (local.set $c (i32x4.add (local.get $c) (local.get $t1)))
      (local.set $g
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $h) (i32.const 2)) (i32x4.shl (local.get $h) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $h) (i32.const 13)) (i32x4.shl (local.get $h) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $h) (i32.const 22)) (i32x4.shl (local.get $h) (i32.const 10))))
            (v128.bitselect (local.get $b) (local.get $h) (v128.xor (local.get $h) (local.get $a))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $g2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $d2) (i32.const 6)) (i32x4.shl (local.get $d2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $d2) (i32.const 11)) (i32x4.shl (local.get $d2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $d2) (i32.const 25)) (i32x4.shl (local.get $d2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $e2) (local.get $f2) (local.get $d2))
            (i32x4.add (v128.load32_splat offset=4 (local.get $k)) (v128.load offset=2064 (local.get $w))))))
      (local.set $c2 (i32x4.add (local.get $c2) (local.get $t12)))
      (local.set $g2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $h2) (i32.const 2)) (i32x4.shl (local.get $h2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $h2) (i32.const 13)) (i32x4.shl (local.get $h2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $h2) (i32.const 22)) (i32x4.shl (local.get $h2) (i32.const 10))))
            (v128.bitselect (local.get $b2) (local.get $h2) (v128.xor (local.get $h2) (local.get $a2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $f)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $c) (i32.const 6)) (i32x4.shl (local.get $c) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $c) (i32.const 11)) (i32x4.shl (local.get $c) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $c) (i32.const 25)) (i32x4.shl (local.get $c) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $d) (local.get $e) (local.get $c))
            (i32x4.add (v128.load32_splat offset=8 (local.get $k)) (v128.load offset=1056 (local.get $w))))))
      (local.set $b (i32x4.add (local.get $b) (local.get $t1)))
      (local.set $f
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $g) (i32.const 2)) (i32x4.shl (local.get $g) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $g) (i32.const 13)) (i32x4.shl (local.get $g) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $g) (i32.const 22)) (i32x4.shl (local.get $g) (i32.const 10))))
            (v128.bitselect (local.get $a) (local.get $g) (v128.xor (local.get $g) (local.get $h))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $f2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $c2) (i32.const 6)) (i32x4.shl (local.get $c2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $c2) (i32.const 11)) (i32x4.shl (local.get $c2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $c2) (i32.const 25)) (i32x4.shl (local.get $c2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $d2) (local.get $e2) (local.get $c2))
            (i32x4.add (v128.load32_splat offset=8 (local.get $k)) (v128.load offset=2080 (local.get $w))))))
      (local.set $b2 (i32x4.add (local.get $b2) (local.get $t12)))
      (local.set $f2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $g2) (i32.const 2)) (i32x4.shl (local.get $g2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $g2) (i32.const 13)) (i32x4.shl (local.get $g2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $g2) (i32.const 22)) (i32x4.shl (local.get $g2) (i32.const 10))))
            (v128.bitselect (local.get $a2) (local.get $g2) (v128.xor (local.get $g2) (local.get $h2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $e)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $b) (i32.const 6)) (i32x4.shl (local.get $b) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $b) (i32.const 11)) (i32x4.shl (local.get $b) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $b) (i32.const 25)) (i32x4.shl (local.get $b) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $c) (local.get $d) (local.get $b))
            (i32x4.add (v128.load32_splat offset=12 (local.get $k)) (v128.load offset=1072 (local.get $w))))))
      (local.set $a (i32x4.add (local.get $a) (local.get $t1)))
      (local.set $e
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $f) (i32.const 2)) (i32x4.shl (local.get $f) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $f) (i32.const 13)) (i32x4.shl (local.get $f) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $f) (i32.const 22)) (i32x4.shl (local.get $f) (i32.const 10))))
            (v128.bitselect (local.get $h) (local.get $f) (v128.xor (local.get $f) (local.get $g))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $e2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $b2) (i32.const 6)) (i32x4.shl (local.get $b2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $b2) (i32.const 11)) (i32x4.shl (local.get $b2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $b2) (i32.const 25)) (i32x4.shl (local.get $b2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $c2) (local.get $d2) (local.get $b2))
            (i32x4.add (v128.load32_splat offset=12 (local.get $k)) (v128.load offset=2096 (local.get $w))))))
      (local.set $a2 (i32x4.add (local.get $a2) (local.get $t12)))
      (local.set $e2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $f2) (i32.const 2)) (i32x4.shl (local.get $f2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $f2) (i32.const 13)) (i32x4.shl (local.get $f2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $f2) (i32.const 22)) (i32x4.shl (local.get $f2) (i32.const 10))))
            (v128.bitselect (local.get $h2) (local.get $f2) (v128.xor (local.get $f2) (local.get $g2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $d)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $a) (i32.const 6)) (i32x4.shl (local.get $a) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $a) (i32.const 11)) (i32x4.shl (local.get $a) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $a) (i32.const 25)) (i32x4.shl (local.get $a) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $b) (local.get $c) (local.get $a))
            (i32x4.add (v128.load32_splat offset=16 (local.get $k)) (v128.load offset=1088 (local.get $w))))))
      (local.set $h (i32x4.add (local.get $h) (local.get $t1)))
      (local.set $d
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $e) (i32.const 2)) (i32x4.shl (local.get $e) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $e) (i32.const 13)) (i32x4.shl (local.get $e) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $e) (i32.const 22)) (i32x4.shl (local.get $e) (i32.const 10))))
            (v128.bitselect (local.get $g) (local.get $e) (v128.xor (local.get $e) (local.get $f))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $d2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $a2) (i32.const 6)) (i32x4.shl (local.get $a2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $a2) (i32.const 11)) (i32x4.shl (local.get $a2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $a2) (i32.const 25)) (i32x4.shl (local.get $a2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $b2) (local.get $c2) (local.get $a2))
            (i32x4.add (v128.load32_splat offset=16 (local.get $k)) (v128.load offset=2112 (local.get $w))))))
      (local.set $h2 (i32x4.add (local.get $h2) (local.get $t12)))
      (local.set $d2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $e2) (i32.const 2)) (i32x4.shl (local.get $e2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $e2) (i32.const 13)) (i32x4.shl (local.get $e2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $e2) (i32.const 22)) (i32x4.shl (local.get $e2) (i32.const 10))))
            (v128.bitselect (local.get $g2) (local.get $e2) (v128.xor (local.get $e2) (local.get $f2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $c)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $h) (i32.const 6)) (i32x4.shl (local.get $h) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $h) (i32.const 11)) (i32x4.shl (local.get $h) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $h) (i32.const 25)) (i32x4.shl (local.get $h) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $a) (local.get $b) (local.get $h))
            (i32x4.add (v128.load32_splat offset=20 (local.get $k)) (v128.load offset=1104 (local.get $w))))))
      (local.set $g (i32x4.add (local.get $g) (local.get $t1)))
      (local.set $c
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $d) (i32.const 2)) (i32x4.shl (local.get $d) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $d) (i32.const 13)) (i32x4.shl (local.get $d) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $d) (i32.const 22)) (i32x4.shl (local.get $d) (i32.const 10))))
            (v128.bitselect (local.get $f) (local.get $d) (v128.xor (local.get $d) (local.get $e))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $c2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $h2) (i32.const 6)) (i32x4.shl (local.get $h2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $h2) (i32.const 11)) (i32x4.shl (local.get $h2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $h2) (i32.const 25)) (i32x4.shl (local.get $h2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $a2) (local.get $b2) (local.get $h2))
            (i32x4.add (v128.load32_splat offset=20 (local.get $k)) (v128.load offset=2128 (local.get $w))))))
      (local.set $g2 (i32x4.add (local.get $g2) (local.get $t12)))
      (local.set $c2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $d2) (i32.const 2)) (i32x4.shl (local.get $d2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $d2) (i32.const 13)) (i32x4.shl (local.get $d2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $d2) (i32.const 22)) (i32x4.shl (local.get $d2) (i32.const 10))))
            (v128.bitselect (local.get $f2) (local.get $d2) (v128.xor (local.get $d2) (local.get $e2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $b)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $g) (i32.const 6)) (i32x4.shl (local.get $g) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $g) (i32.const 11)) (i32x4.shl (local.get $g) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $g) (i32.const 25)) (i32x4.shl (local.get $g) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $h) (local.get $a) (local.get $g))
            (i32x4.add (v128.load32_splat offset=24 (local.get $k)) (v128.load offset=1120 (local.get $w))))))
      (local.set $f (i32x4.add (local.get $f) (local.get $t1)))
      (local.set $b
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $c) (i32.const 2)) (i32x4.shl (local.get $c) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $c) (i32.const 13)) (i32x4.shl (local.get $c) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $c) (i32.const 22)) (i32x4.shl (local.get $c) (i32.const 10))))
            (v128.bitselect (local.get $e) (local.get $c) (v128.xor (local.get $c) (local.get $d))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $b2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $g2) (i32.const 6)) (i32x4.shl (local.get $g2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $g2) (i32.const 11)) (i32x4.shl (local.get $g2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $g2) (i32.const 25)) (i32x4.shl (local.get $g2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $h2) (local.get $a2) (local.get $g2))
            (i32x4.add (v128.load32_splat offset=24 (local.get $k)) (v128.load offset=2144 (local.get $w))))))
      (local.set $f2 (i32x4.add (local.get $f2) (local.get $t12)))
      (local.set $b2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $c2) (i32.const 2)) (i32x4.shl (local.get $c2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $c2) (i32.const 13)) (i32x4.shl (local.get $c2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $c2) (i32.const 22)) (i32x4.shl (local.get $c2) (i32.const 10))))
            (v128.bitselect (local.get $e2) (local.get $c2) (v128.xor (local.get $c2) (local.get $d2))))))
      (local.set $t1
        (i32x4.add
          (i32x4.add
            (local.get $a)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $f) (i32.const 6)) (i32x4.shl (local.get $f) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $f) (i32.const 11)) (i32x4.shl (local.get $f) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $f) (i32.const 25)) (i32x4.shl (local.get $f) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $g) (local.get $h) (local.get $f))
            (i32x4.add (v128.load32_splat offset=28 (local.get $k)) (v128.load offset=1136 (local.get $w))))))
      (local.set $e (i32x4.add (local.get $e) (local.get $t1)))
      (local.set $a
        (i32x4.add
          (local.get $t1)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $b) (i32.const 2)) (i32x4.shl (local.get $b) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $b) (i32.const 13)) (i32x4.shl (local.get $b) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $b) (i32.const 22)) (i32x4.shl (local.get $b) (i32.const 10))))
            (v128.bitselect (local.get $d) (local.get $b) (v128.xor (local.get $b) (local.get $c))))))
      (local.set $t12
        (i32x4.add
          (i32x4.add
            (local.get $a2)
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $f2) (i32.const 6)) (i32x4.shl (local.get $f2) (i32.const 26)))
                (v128.or (i32x4.shr_u (local.get $f2) (i32.const 11)) (i32x4.shl (local.get $f2) (i32.const 21))))
              (v128.or (i32x4.shr_u (local.get $f2) (i32.const 25)) (i32x4.shl (local.get $f2) (i32.const 7)))))
          (i32x4.add
            (v128.bitselect (local.get $g2) (local.get $h2) (local.get $f2))
            (i32x4.add (v128.load32_splat offset=28 (local.get $k)) (v128.load offset=2160 (local.get $w))))))
      (local.set $e2 (i32x4.add (local.get $e2) (local.get $t12)))
      (local.set $a2
        (i32x4.add
          (local.get $t12)
          (i32x4.add
            (v128.xor
              (v128.xor
                (v128.or (i32x4.shr_u (local.get $b2) (i32.const 2)) (i32x4.shl (local.get $b2) (i32.const 30)))
                (v128.or (i32x4.shr_u (local.get $b2) (i32.const 13)) (i32x4.shl (local.get $b2) (i32.const 19))))
              (v128.or (i32x4.shr_u (local.get $b2) (i32.const 22)) (i32x4.shl (local.get $b2) (i32.const 10))))
            (v128.bitselect (local.get $d2) (local.get $b2) (v128.xor (local.get $b2) (local.get $c2))))))
      (local.set $w (i32.add (local.get $w) (i32.const 128)))
      (local.set $k (i32.add (local.get $k) (i32.const 32)))
      (br_if $rounds (i32.lt_u (local.get $w) (i32.const 1024))))
    (v128.store (i32.const 3072) (i32x4.add (local.get $a) (i32x4.splat (i32.const 0x6a09e667))))
    (v128.store (i32.const 3088) (i32x4.add (local.get $a2) (i32x4.splat (i32.const 0x6a09e667)))))

  (func (export "solve") (param $plen i32) (param $bits i32) (param $start f64) (param $rounds i32) (result f64)
    (local $limit v128) (local $hit v128) (local $n f64) (local $j i32)
    (if (i32.gt_u (i32.add (local.get $plen) (i32.const 16)) (i32.const 55)) (then (return (f64.const -2))))
    (if (i32.eqz (local.get $bits)) (then (return (local.get $start))))
    ;; a digest passes when its first word is below 2^(32 - bits), unsigned
    (local.set $limit (i32x4.splat (i32.shl (i32.const 1) (i32.sub (i32.const 32) (local.get $bits)))))
    (local.set $n (local.get $start))
    (local.set $j (i32.const 0))
    (loop $lanes
      (call $setLane (local.get $j) (local.get $plen) (f64.add (local.get $n) (f64.convert_i32_u (local.get $j))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $lanes (i32.lt_u (local.get $j) (i32.const 8))))
    (block $exhausted
      (loop $search
        (br_if $exhausted (i32.eqz (local.get $rounds)))
        (call $firstWords)
        (local.set $hit (i32x4.lt_u (v128.load (i32.const 3072)) (local.get $limit)))
        (if (v128.any_true (local.get $hit))
          (then
            (if (i32x4.extract_lane 0 (local.get $hit)) (then (return (local.get $n))))
            (if (i32x4.extract_lane 1 (local.get $hit)) (then (return (f64.add (local.get $n) (f64.const 1)))))
            (if (i32x4.extract_lane 2 (local.get $hit)) (then (return (f64.add (local.get $n) (f64.const 2)))))
            (return (f64.add (local.get $n) (f64.const 3)))))
        (local.set $hit (i32x4.lt_u (v128.load (i32.const 3088)) (local.get $limit)))
        (if (v128.any_true (local.get $hit))
          (then
            (if (i32x4.extract_lane 0 (local.get $hit)) (then (return (f64.add (local.get $n) (f64.const 4)))))
            (if (i32x4.extract_lane 1 (local.get $hit)) (then (return (f64.add (local.get $n) (f64.const 5)))))
            (if (i32x4.extract_lane 2 (local.get $hit)) (then (return (f64.add (local.get $n) (f64.const 6)))))
            (return (f64.add (local.get $n) (f64.const 7)))))
        (local.set $n (f64.add (local.get $n) (f64.const 8)))
        (local.set $j (i32.const 0))
        (loop $bumpLanes
          (if (call $bump (local.get $j) (local.get $plen))
            (then (call $setLane (local.get $j) (local.get $plen) (f64.add (local.get $n) (f64.convert_i32_u (local.get $j))))))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br_if $bumpLanes (i32.lt_u (local.get $j) (i32.const 8))))
        (local.set $rounds (i32.sub (local.get $rounds) (i32.const 1)))
        (br $search)))
    (f64.const -1))
)
