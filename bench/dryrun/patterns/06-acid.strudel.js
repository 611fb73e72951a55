// bench/dryrun: acid, 130 bpm, in G
setcpm(130/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("LinnDrum").gain(.9)
$: s("~ cp ~ cp").bank("LinnDrum").room(.2)
$: s("hh*16").bank("LinnDrum").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: acid line with accents and slides of the filter
$: note("g2 [g2 g3] ~ g2 [~ g3] g2 ~ [g3 g2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_flute")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("sawtooth")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: a soundfont melody with a call and response
$: note("<[g4 g5] [g5 g4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: a high ping every other cycle
$: note("g6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)
