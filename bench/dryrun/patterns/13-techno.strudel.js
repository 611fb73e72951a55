// bench/dryrun: techno, 134 bpm, in F
setcpm(134/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR909").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR909").room(.2)
$: s("hh*16").bank("RolandTR909").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: acid line with accents and slides of the filter
$: note("f2 [f2 f3] ~ f2 [~ f3] f2 ~ [f3 f2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_pad_warm")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a melody that changes every cycle, panned wide
$: note("<[f5 ~ f5 ~] [~ f4 ~ f5] [f5 f4 ~ ~] [~ ~ f4 ~]>")
  .add(note("<0 3 5 7>")).s("square").jux(rev).room(.5).gain(.25)

// texture: a high ping every other cycle
$: note("f6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)
