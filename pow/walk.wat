;; The proof-of-work function, eight attempts at a time (pow/walk.ts defines it and says why
;; it is built this way; pow/walk.ts's `attempt` is the same function, one attempt, in
;; TypeScript). An attempt seeds a state from its lane's key and nonce, fills the lane's 64 KB
;; buffer from it, then walks: 65,536 times it reads the word the state points at, folds it
;; into the state and writes it back changed. Each step needs the one before, so one attempt
;; is a chain of dependent loads; the eight lanes are written out side by side so the CPU
;; overlaps their chains. That is all a native solver does too: the steps are scalar loads,
;; stores and 32-bit multiplies, which WebAssembly runs at close to native speed, and wide
;; vectors do not help (gathers and scatters are slower than scalar loads here).
;;
;; Memory map (bytes):
;;   0     keys: 8 lanes x 8 words, the key each lane's attempt is for
;;   256   nonces: 8 words, each lane's nonce
;;   288   results: 8 words, each lane's result (the attempt passes when its top `bits` bits are 0)
;;   4096  buffers: 8 lanes x (16,384 + 16) words (16 words apart, so lanes do not share cache sets)
(module
  (memory (export "memory") 9)

  ;; lowbias32 (Chris Wellons' 32-bit integer hash): a full-avalanche mix of one word
  (func $mix (param $x i32) (result i32)
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 16))))
    (local.set $x (i32.mul (local.get $x) (i32.const 0x7feb352d)))
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 15))))
    (local.set $x (i32.mul (local.get $x) (i32.const 0x846ca68b)))
    (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 16))))

  ;; lane $l's starting state: its nonce folded with each of its key's eight words
  (func $seed (param $l i32) (result i32)
    (local $x i32) (local $k i32) (local $t i32)
    (local.set $x (i32.load offset=256 (i32.shl (local.get $l) (i32.const 2))))
    (local.set $k (i32.shl (local.get $l) (i32.const 5)))
    (loop $words
      (local.set $x (call $mix (i32.xor (local.get $x) (i32.load (i32.add (local.get $k) (i32.shl (local.get $t) (i32.const 2)))))))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br_if $words (i32.lt_u (local.get $t) (i32.const 8))))
    (local.get $x))

  ;; one attempt in each of the eight lanes: keys and nonces in, results out
  (func $run (export "run")
    (local $j i32) (local $s i32) (local $a i32) (local $v i32)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32) (local $x4 i32) (local $x5 i32) (local $x6 i32) (local $x7 i32)
    (local.set $x0 (call $seed (i32.const 0)))
    (local.set $x1 (call $seed (i32.const 1)))
    (local.set $x2 (call $seed (i32.const 2)))
    (local.set $x3 (call $seed (i32.const 3)))
    (local.set $x4 (call $seed (i32.const 4)))
    (local.set $x5 (call $seed (i32.const 5)))
    (local.set $x6 (call $seed (i32.const 6)))
    (local.set $x7 (call $seed (i32.const 7)))
    ;; fill: each lane's buffer, one word after the other from its seed
    (local.set $j (i32.const 0))
    (loop $fill
      (local.set $x0 (i32.xor (i32.mul (i32.rotl (local.get $x0) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=4096 (i32.shl (local.get $j) (i32.const 2)) (local.get $x0))
      (local.set $x1 (i32.xor (i32.mul (i32.rotl (local.get $x1) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=69696 (i32.shl (local.get $j) (i32.const 2)) (local.get $x1))
      (local.set $x2 (i32.xor (i32.mul (i32.rotl (local.get $x2) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=135296 (i32.shl (local.get $j) (i32.const 2)) (local.get $x2))
      (local.set $x3 (i32.xor (i32.mul (i32.rotl (local.get $x3) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=200896 (i32.shl (local.get $j) (i32.const 2)) (local.get $x3))
      (local.set $x4 (i32.xor (i32.mul (i32.rotl (local.get $x4) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=266496 (i32.shl (local.get $j) (i32.const 2)) (local.get $x4))
      (local.set $x5 (i32.xor (i32.mul (i32.rotl (local.get $x5) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=332096 (i32.shl (local.get $j) (i32.const 2)) (local.get $x5))
      (local.set $x6 (i32.xor (i32.mul (i32.rotl (local.get $x6) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=397696 (i32.shl (local.get $j) (i32.const 2)) (local.get $x6))
      (local.set $x7 (i32.xor (i32.mul (i32.rotl (local.get $x7) (i32.const 13)) (i32.const 0x9e3779b1)) (local.get $j)))
      (i32.store offset=463296 (i32.shl (local.get $j) (i32.const 2)) (local.get $x7))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $j) (i32.const 16384))))
    ;; walk: read the word the state points at, fold it in, write it back changed
    (local.set $s (i32.const 0))
    (loop $walk
      (local.set $a (i32.shl (i32.shr_u (local.get $x0) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=4096 (local.get $a)))
      (local.set $x0 (i32.rotl (i32.mul (i32.xor (local.get $x0) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=4096 (local.get $a) (i32.add (local.get $v) (local.get $x0)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x1) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=69696 (local.get $a)))
      (local.set $x1 (i32.rotl (i32.mul (i32.xor (local.get $x1) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=69696 (local.get $a) (i32.add (local.get $v) (local.get $x1)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x2) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=135296 (local.get $a)))
      (local.set $x2 (i32.rotl (i32.mul (i32.xor (local.get $x2) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=135296 (local.get $a) (i32.add (local.get $v) (local.get $x2)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x3) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=200896 (local.get $a)))
      (local.set $x3 (i32.rotl (i32.mul (i32.xor (local.get $x3) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=200896 (local.get $a) (i32.add (local.get $v) (local.get $x3)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x4) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=266496 (local.get $a)))
      (local.set $x4 (i32.rotl (i32.mul (i32.xor (local.get $x4) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=266496 (local.get $a) (i32.add (local.get $v) (local.get $x4)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x5) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=332096 (local.get $a)))
      (local.set $x5 (i32.rotl (i32.mul (i32.xor (local.get $x5) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=332096 (local.get $a) (i32.add (local.get $v) (local.get $x5)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x6) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=397696 (local.get $a)))
      (local.set $x6 (i32.rotl (i32.mul (i32.xor (local.get $x6) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=397696 (local.get $a) (i32.add (local.get $v) (local.get $x6)))
      (local.set $a (i32.shl (i32.shr_u (local.get $x7) (i32.const 18)) (i32.const 2)))
      (local.set $v (i32.load offset=463296 (local.get $a)))
      (local.set $x7 (i32.rotl (i32.mul (i32.xor (local.get $x7) (local.get $v)) (i32.const 0x2545f491)) (i32.const 13)))
      (i32.store offset=463296 (local.get $a) (i32.add (local.get $v) (local.get $x7)))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br_if $walk (i32.lt_u (local.get $s) (i32.const 65536))))
    ;; result: the final state mixed with the key's first word
    (i32.store (i32.const 288) (call $mix (i32.xor (local.get $x0) (i32.load (i32.const 0)))))
    (i32.store (i32.const 292) (call $mix (i32.xor (local.get $x1) (i32.load (i32.const 32)))))
    (i32.store (i32.const 296) (call $mix (i32.xor (local.get $x2) (i32.load (i32.const 64)))))
    (i32.store (i32.const 300) (call $mix (i32.xor (local.get $x3) (i32.load (i32.const 96)))))
    (i32.store (i32.const 304) (call $mix (i32.xor (local.get $x4) (i32.load (i32.const 128)))))
    (i32.store (i32.const 308) (call $mix (i32.xor (local.get $x5) (i32.load (i32.const 160)))))
    (i32.store (i32.const 312) (call $mix (i32.xor (local.get $x6) (i32.load (i32.const 192)))))
    (i32.store (i32.const 316) (call $mix (i32.xor (local.get $x7) (i32.load (i32.const 224))))))

  ;; Tries nonces start, start + 1, ... (eight per round, every lane on lane 0's key) for
  ;; `rounds` rounds; the first whose result's top $bits bits are zero, or -1. 1 <= $bits <= 31.
  (func (export "search") (param $bits i32) (param $start i32) (param $rounds i32) (result i32)
    (local $r i32) (local $l i32)
    (loop $round
      (local.set $l (i32.const 0))
      (loop $set
        (i32.store offset=256 (i32.shl (local.get $l) (i32.const 2)) (i32.add (local.get $start) (local.get $l)))
        (local.set $l (i32.add (local.get $l) (i32.const 1)))
        (br_if $set (i32.lt_u (local.get $l) (i32.const 8))))
      (call $run)
      (local.set $l (i32.const 0))
      (loop $check
        (if (i32.eqz (i32.shr_u (i32.load offset=288 (i32.shl (local.get $l) (i32.const 2))) (i32.sub (i32.const 32) (local.get $bits))))
          (then (return (i32.add (local.get $start) (local.get $l)))))
        (local.set $l (i32.add (local.get $l) (i32.const 1)))
        (br_if $check (i32.lt_u (local.get $l) (i32.const 8))))
      (local.set $start (i32.add (local.get $start) (i32.const 8)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br_if $round (i32.lt_u (local.get $r) (local.get $rounds))))
    (i32.const -1))
)
