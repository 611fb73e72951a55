// bench/dryrun: breakbeat, 114 bpm, in Bb
setcpm(114/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("RolandTR707")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("RolandTR707").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("BB1:minor").s("triangle")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_flute")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("BB4:pentatonic").s("sawtooth")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)

// texture: a high ping every other cycle
$: note("bb6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)
