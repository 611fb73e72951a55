// bench/dryrun: acid, 124 bpm, in Bb
setcpm(124/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR808").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR808").room(.2)
$: s("hh*16").bank("RolandTR808").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: acid line with accents and slides of the filter
$: note("bb2 [bb2 bb3] ~ bb2 [~ bb3] bb2 ~ [bb3 bb2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("triangle")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("supersaw")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("BB4:pentatonic").s("gm_acoustic_bass")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)

// texture: a high ping every other cycle
$: note("bb6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)
