// bench/dryrun: house, 124 bpm, in F
setcpm(124/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("LinnDrum").gain(.9)
$: s("~ cp ~ cp").bank("LinnDrum").room(.2)
$: s("hh*16").bank("LinnDrum").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: a soundfont bass, syncopated
$: note("f2 ~ [~ f2] ~ f2 [~ f3] ~ f2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_piano")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_pad_warm")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("F4:pentatonic").s("triangle")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)

// texture: a high ping every other cycle
$: note("f6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)

// everything a little wider
all(x => x.room(.1))
