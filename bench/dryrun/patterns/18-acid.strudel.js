// bench/dryrun: acid, 132 bpm, in D
setcpm(132/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR808").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR808").room(.2)
$: s("hh*16").bank("RolandTR808").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: acid line with accents and slides of the filter
$: note("d2 [d2 d3] ~ d2 [~ d3] d2 ~ [d3 d2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_lead_2_sawtooth")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a melody that changes every cycle, panned wide
$: note("<[d5 ~ d5 ~] [~ d4 ~ d5] [d5 d4 ~ ~] [~ ~ d4 ~]>")
  .add(note("<0 3 5 7>")).s("sine").jux(rev).room(.5).gain(.25)

// texture: a high ping every other cycle
$: note("d6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)

// everything a little wider
all(x => x.room(.1))
