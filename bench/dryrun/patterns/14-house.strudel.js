// bench/dryrun: house, 128 bpm, in F
setcpm(128/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("AkaiMPC60").gain(.9)
$: s("~ cp ~ cp").bank("AkaiMPC60").room(.2)
$: s("hh*16").bank("AkaiMPC60").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: acid line with accents and slides of the filter
$: note("f2 [f2 f3] ~ f2 [~ f3] f2 ~ [f3 f2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_synth_bass_1")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a soundfont melody with a call and response
$: note("<[f4 f5] [f5 f4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: filtered noise sweeps
$: s("white").lpf(sine.range(200, 4000).slow(16)).attack(1).release(2).sustain(1).gain(.05)

// everything a little wider
all(x => x.room(.1))
