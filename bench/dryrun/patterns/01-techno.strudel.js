// bench/dryrun: techno, 136 bpm, in C
setcpm(136/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR909").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR909").room(.2)
$: s("hh*16").bank("RolandTR909").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: acid line with accents and slides of the filter
$: note("c2 [c2 c3] ~ c2 [~ c3] c2 ~ [c3 c2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_pad_warm")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("supersaw")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("C4:pentatonic").s("gm_epiano1")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)

// muted idea, kept for later
_$: s("cp*8").gain(.3)
